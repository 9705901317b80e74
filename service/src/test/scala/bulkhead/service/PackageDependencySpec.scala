package bulkhead.service

import bulkhead.packagegraph.PackageGraph
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.Path

/** The service's packages depend on each other one way: read from the main sources, checked as a graph. */
class PackageDependencySpec extends AnyFlatSpec with Matchers:
  private val main = PackageGraph.read(Path.of("src/main/scala"), "bulkhead.service")
  private def pkg(name: String) = if name.isEmpty then "bulkhead.service" else s"bulkhead.service.$name"

  "The service's packages" should "form no cycle" in {
    withClue(main.describe + "\n")(main.cycles shouldBe Nil)
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
