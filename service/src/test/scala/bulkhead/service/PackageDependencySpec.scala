package bulkhead.service

import bulkhead.service.testkit.PackageGraph
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.Path

/** The service's packages depend on each other one way: read from the main sources, checked as a graph. */
class PackageDependencySpec extends AnyFlatSpec with Matchers:
  private val main = PackageGraph.read(Path.of("src/main/scala"))
  private def pkg(name: String) = if name.isEmpty then "bulkhead.service" else s"bulkhead.service.$name"

  private def describe(graph: PackageGraph): String =
    graph.edges.toSeq.sortBy(_._1).map((p, qs) => s"$p -> ${qs.toSeq.sorted.mkString(", ")}").mkString("\n")

  "The service's packages" should "form no cycle" in {
    withClue(describe(main) + "\n")(main.cycles shouldBe Nil)
  }

  it should "be read from the real sources: adapters depend on the domain, the wiring on every package" in {
    main.packages should contain allOf (pkg("enrichment"), pkg("soap"), pkg("redis"), pkg("http"), pkg("config"),
      pkg("dispatch"), pkg("dispatch.internal"), pkg("http.internal"), pkg("metrics"), pkg("work"))
    main.edges(pkg("soap")) should contain(pkg("enrichment"))
    main.edges(pkg("redis")) should contain(pkg("enrichment"))
    main.edges(pkg("http")) should contain(pkg("http.internal"))
    main.edges(pkg("")) should contain allOf (pkg("soap"), pkg("redis"), pkg("http"), pkg("metrics"))
  }

  it should "keep the domain free of its adapters and of the HTTP edge" in {
    main.edges.getOrElse(pkg("enrichment"), Set.empty) should contain noneOf (pkg("soap"), pkg("redis"), pkg("http"))
  }

  it should "use an internal package only from the package that owns it" in {
    val misuse = for
      (from, to) <- main.edges.toSeq
      target <- to if target.endsWith(".internal") && from != target.stripSuffix(".internal")
    yield s"$from -> $target"
    misuse shouldBe Nil
  }

  "The package check" should "find a cycle made of an import, a qualified name and a relative subpackage" in {
    val graph = PackageGraph.of(Seq(
      "package bulkhead.service.a\n\nimport bulkhead.service.b.B\n\nclass A(b: B)",
      "package bulkhead.service.b\n\nclass B:\n  def c = internal.C()",
      "package bulkhead.service.b.internal\n\nclass C:\n  def a: bulkhead.service.a.A = null",
      "package bulkhead.service.d\n\nimport bulkhead.service.a.A"))
    graph.cycles shouldBe Seq(Set(pkg("a"), pkg("b"), pkg("b.internal")))
  }

  it should "not count names inside comments or strings as dependencies" in {
    val graph = PackageGraph.of(Seq(
      "package bulkhead.service.a\n\n// uses bulkhead.service.b.B\n/** see [[bulkhead.service.b.B]] */\nclass A",
      "package bulkhead.service.b\n\nimport bulkhead.service.a.A\nval key = \"bulkhead.service.a.port\"",
      "package bulkhead.service.c\n\nval k = '\"'\nval url = \"\"\"x // bulkhead.service.a\"\"\"\nval c = 'c'"))
    graph.edges(pkg("a")) shouldBe empty
    graph.edges(pkg("b")) shouldBe Set(pkg("a"))
    graph.edges(pkg("c")) shouldBe empty
    graph.cycles shouldBe Nil
  }
