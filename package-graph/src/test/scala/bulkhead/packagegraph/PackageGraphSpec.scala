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
