package bulkhead.lab

import bulkhead.packagegraph.PackageGraph
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.{Files, Path}

/**
 * The lab's packages depend on each other one way, from the command line down to the model of shared types, in the
 * layers [[PackageDependencySpec.Layers]] declares: read from the main sources, checked as a graph. The README and
 * docs/method.md quote the same layers, and this spec holds them to it.
 */
class PackageDependencySpec extends AnyFlatSpec with Matchers:
  import PackageDependencySpec.*

  private val main = PackageGraph.read(Path.of("src/main/scala"), "bulkhead.lab")
  private val layers = Layers.map(_.map(pkg))
  private def uses(name: String) = main.edges.getOrElse(pkg(name), Set.empty)

  "The lab's packages" should "form no cycle" in {
    withClue(main.describe + "\n")(main.cycles shouldBe Nil)
  }

  it should "each depend only on packages of a lower layer" in {
    withClue(main.describe + "\n")(main.upward(layers) shouldBe Nil)
  }

  it should "each be in a layer, and every layer's package exist, so a new package is declared before it is used" in {
    main.unlayered(layers) shouldBe empty
    layers.flatten.toSet -- main.packages shouldBe empty
  }

  it should "fail the layering when an edge up is added: to the command line, within a layer, out of the model" in {
    val added = Seq(pkg("record") -> pkg("cli"), pkg("diagnose") -> pkg("checks"), pkg("model") -> pkg("record"))
    for (from, to) <- added do
      val graph = PackageGraph(main.edges.updated(from, main.edges.getOrElse(from, Set.empty) + to))
      graph.upward(layers) shouldBe Seq(s"$from -> $to")
  }

  it should "be read from the real sources: commands run suites, suites measure, every stage speaks the model" in {
    uses("") should contain(pkg("cli"))
    uses("cli") should contain allOf (pkg("run"), pkg("report"), pkg("bench"), pkg("faults"), pkg("gate"),
      pkg("capacity"))
    uses("capacity") should contain allOf (pkg("run"), pkg("diagnose"))
    uses("run") should contain allOf (pkg("diagnose"), pkg("record"), pkg("load"))
    uses("report") should contain allOf (pkg("diagnose"), pkg("checks"), pkg("record"))
    uses("faults") should contain allOf (pkg("checks"), pkg("load"), pkg("run"))
    uses("diagnose") should contain allOf (pkg("record"), pkg("model"))
    uses("checks") should contain(pkg("record"))
    uses("load") should contain(pkg("record"))
    uses("record") should contain(pkg("model"))
    uses("sample") should contain(pkg("process"))
    uses("model") shouldBe empty
  }

  "The README and docs/method.md" should "quote the layers as declared here" in {
    for doc <- Seq("README.md", "docs/method.md") do
      val text = Files.readString(Path.of("..").resolve(doc)).replaceAll("\\s+", " ")
      withClue(s"$doc should quote the lab's layers as: $Quoted\n")(text should include(Quoted))
  }

object PackageDependencySpec:
  /**
   * The lab's packages in layers, top first: a package may depend only on packages of the layers below its own. ""
   * is the root package (`LabMain`, which only wires). `cli` parses and prints; the suites (`bench`, `faults`, `gate`,
   * `capacity`) drive runs; `run` is the one measuring loop and `report` renders records; `diagnose` and `checks`
   * judge records, and `load` drives load into them; `record` is a run as data; `sample` reads a JVM; `scenario` says
   * what to run and `process` starts it; `model` holds the types every stage speaks.
   */
  val Layers: Seq[Seq[String]] = Seq(Seq(""), Seq("cli"), Seq("bench", "faults", "gate", "capacity"),
    Seq("run", "report"), Seq("diagnose", "checks", "load"), Seq("record"), Seq("sample"), Seq("scenario", "process"),
    Seq("model"))

  /** The layers below the root as the docs quote them: `cli`; `bench`, `faults`, ...; `model`. */
  val Quoted: String = Layers.tail.map(_.map(p => s"`$p`").mkString(", ")).mkString("; ")

  def pkg(name: String): String = if name.isEmpty then "bulkhead.lab" else s"bulkhead.lab.$name"
