package bulkhead.transport

import bulkhead.packagegraph.PackageGraph
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.{Files, Path}
import scala.jdk.CollectionConverters.*
import scala.util.Using

/**
 * The transport's code lives in bulkhead's own package; only the shim that constructs Pekko's `private[pekko]` types
 * sits under `org.apache.pekko`, in a package of its own (no package split with Pekko's jars), and only it touches
 * Pekko's internal packages.
 */
class PackageDependencySpec extends AnyFlatSpec with Matchers:
  private val main = Path.of("src/main/scala")
  private def sources(under: String): Seq[Path] =
    Using.resource(Files.walk(main.resolve(under)))(_.iterator.asScala.filter(_.toString.endsWith(".scala")).toList)

  "The transport's packages" should "form no cycle" in {
    val graph = PackageGraph.read(main, "bulkhead.transport")
    withClue(graph.describe + "\n")(graph.cycles shouldBe Nil)
    graph.packages should contain("bulkhead.transport")
  }

  it should "keep one file under org.apache.pekko, in bulkhead's own package there" in {
    sources("org").map(main.relativize(_).toString) shouldBe Seq("org/apache/pekko/bulkhead/PekkoTcpInternals.scala")
  }

  it should "reach Pekko's internal packages only through that shim" in {
    val internal = raw"import org\.apache\.pekko\.stream\.impl".r
    val reaching = sources("bulkhead").filter(p => internal.findFirstIn(Files.readString(p)).isDefined)
    reaching shouldBe Nil
  }
