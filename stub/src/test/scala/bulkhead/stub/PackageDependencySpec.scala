package bulkhead.stub

import bulkhead.packagegraph.PackageGraph
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.Path

/**
 * The stub's packages depend on each other one way. It is one package today (`bulkhead.stub`, its `Main` beside
 * what it wires); a package split from it must not reach back into one that uses it.
 */
class PackageDependencySpec extends AnyFlatSpec with Matchers:
  private val main = PackageGraph.read(Path.of("src/main/scala"), "bulkhead.stub")

  "The stub's packages" should "form no cycle" in {
    withClue(main.describe + "\n")(main.cycles shouldBe Nil)
  }

  it should "be read from the real sources" in {
    main.packages should contain("bulkhead.stub")
  }
