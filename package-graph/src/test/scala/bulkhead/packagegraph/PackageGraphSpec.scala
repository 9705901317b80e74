package bulkhead.packagegraph

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/** The reader every module's `PackageDependencySpec` uses, on small source texts. */
class PackageGraphSpec extends AnyFlatSpec with Matchers:
  private def pkg(name: String) = if name.isEmpty then "bulkhead.service" else s"bulkhead.service.$name"

  "The package check" should "find a cycle made of an import, a qualified name and a relative subpackage" in {
    val graph = PackageGraph.of(Seq(
      "package bulkhead.service.a\n\nimport bulkhead.service.b.B\n\nclass A(b: B)",
      "package bulkhead.service.b\n\nclass B:\n  def c = internal.C()",
      "package bulkhead.service.b.internal\n\nclass C:\n  def a: bulkhead.service.a.A = null",
      "package bulkhead.service.d\n\nimport bulkhead.service.a.A"), "bulkhead.service")
    graph.cycles shouldBe Seq(Set(pkg("a"), pkg("b"), pkg("b.internal")))
  }

  it should "name each edge that points to its own layer or above, and each package no layer holds" in {
    val graph = PackageGraph.of(Seq(
      "package bulkhead.lab.cli\n\nimport bulkhead.lab.run.Run\nimport bulkhead.lab.model.M",
      "package bulkhead.lab.run\n\nimport bulkhead.lab.model.M\nimport bulkhead.lab.report.R",
      "package bulkhead.lab.report\n\nimport bulkhead.lab.model.M",
      "package bulkhead.lab.model\n\nobject M",
      "package bulkhead.lab.extra\n\nimport bulkhead.lab.model.M"), "bulkhead.lab")
    val layers = Seq(Seq("cli"), Seq("run", "report"), Seq("model")).map(_.map(p => s"bulkhead.lab.$p"))
    graph.upward(layers) shouldBe Seq("bulkhead.lab.run -> bulkhead.lab.report")
    graph.unlayered(layers) shouldBe Set("bulkhead.lab.extra")
    val fixed = PackageGraph(graph.edges.updated("bulkhead.lab.run", Set("bulkhead.lab.model")))
    fixed.upward(layers) shouldBe Nil
    PackageGraph(fixed.edges.updated("bulkhead.lab.model", Set("bulkhead.lab.cli"))).upward(layers) shouldBe
      Seq("bulkhead.lab.model -> bulkhead.lab.cli")
  }

  it should "not count names inside comments or strings as dependencies" in {
    val graph = PackageGraph.of(Seq(
      "package bulkhead.service.a\n\n// uses bulkhead.service.b.B\n/** see [[bulkhead.service.b.B]] */\nclass A",
      "package bulkhead.service.b\n\nimport bulkhead.service.a.A\nval key = \"bulkhead.service.a.port\"",
      "package bulkhead.service.c\n\nval k = '\"'\nval url = \"\"\"x // bulkhead.service.a\"\"\"\nval c = 'c'"),
      "bulkhead.service")
    graph.edges(pkg("a")) shouldBe empty
    graph.edges(pkg("b")) shouldBe Set(pkg("a"))
    graph.edges(pkg("c")) shouldBe empty
    graph.cycles shouldBe Nil
  }

  it should "count only the packages under its root, and the root package itself" in {
    val graph = PackageGraph.of(Seq(
      "package bulkhead.lab\n\nimport bulkhead.lab.cli.Command\nobject Main",
      "package bulkhead.lab.cli\n\nimport bulkhead.stub.Latency\nimport bulkhead.labels.Label\ntrait Command",
      "package bulkhead.lab.run\n\nval main = bulkhead.lab.Main",
      "package bulkhead.stub\n\nimport bulkhead.lab.run.X"), "bulkhead.lab")
    graph.packages shouldBe Set("bulkhead.lab", "bulkhead.lab.cli", "bulkhead.lab.run")
    graph.edges("bulkhead.lab") shouldBe Set("bulkhead.lab.cli")
    graph.edges("bulkhead.lab.cli") shouldBe empty
    graph.edges("bulkhead.lab.run") shouldBe Set("bulkhead.lab")
  }
