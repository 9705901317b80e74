package bulkhead.lab

import bulkhead.packagegraph.PackageGraph
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.Path

/**
 * The lab's packages depend on each other one way, from the command line down to the model of shared types: `cli`;
 * `bench`, `faults`, `gate`; `run`, `report`; `diagnose`; `record`; `sample`, `load`; `scenario`, `process`; `model`.
 * Read from the main sources, checked as a graph.
 */
class PackageDependencySpec extends AnyFlatSpec with Matchers:
  private val main = PackageGraph.read(Path.of("src/main/scala"), "bulkhead.lab")
  private def pkg(name: String) = if name.isEmpty then "bulkhead.lab" else s"bulkhead.lab.$name"
  private def uses(name: String) = main.edges.getOrElse(pkg(name), Set.empty)

  "The lab's packages" should "form no cycle" in {
    withClue(main.describe + "\n")(main.cycles shouldBe Nil)
  }

  it should "keep the model at the bottom: it depends on no other package of the lab" in {
    withClue(main.describe + "\n")(uses("model") shouldBe empty)
  }

  it should "let no package depend on the command line or on the root package (LabMain, which only wires)" in {
    val upward = for
      (from, to) <- main.edges.toSeq
      target <- to if target == pkg("") || target == pkg("cli")
      if from != pkg("")
    yield s"$from -> $target"
    upward shouldBe Nil
  }

  it should "be read from the real sources: the commands run suites, every stage speaks the model" in {
    main.packages should contain allOf (pkg(""), pkg("cli"), pkg("bench"), pkg("faults"), pkg("gate"), pkg("run"),
      pkg("report"), pkg("diagnose"), pkg("record"), pkg("sample"), pkg("scenario"), pkg("load"), pkg("process"),
      pkg("model"))
    uses("") should contain(pkg("cli"))
    uses("cli") should contain allOf (pkg("run"), pkg("report"), pkg("bench"), pkg("faults"), pkg("gate"))
    uses("run") should contain allOf (pkg("diagnose"), pkg("record"), pkg("load"))
    uses("report") should contain allOf (pkg("diagnose"), pkg("record"))
    uses("diagnose") should contain allOf (pkg("record"), pkg("model"))
    uses("record") should contain(pkg("model"))
    uses("sample") should contain(pkg("process"))
  }
