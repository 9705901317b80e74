package bulkhead.packagegraph

import org.scalatest.BeforeAndAfterAll
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.{Files, Path}
import scala.jdk.CollectionConverters.*

/** The reader of the specs' coverage guards, on a small tree of sources written here. */
class UnnamedFilesSpec extends AnyFlatSpec with Matchers with BeforeAndAfterAll:
  // The trees of every case, deleted when the spec ends; made at the first, as the engine also builds specs it only
  // lists.
  private lazy val scratch = Files.createTempDirectory("unnamed-files")

  override def afterAll(): Unit =
    val all = Files.walk(scratch)
    try all.iterator().asScala.toSeq.reverse.foreach(Files.deleteIfExists)
    finally all.close()

  private def tree(files: (String, String)*): Path =
    val root = Files.createTempDirectory(scratch, "tree")
    for (name, text) <- files do
      val f = root.resolve(name)
      Files.createDirectories(f.getParent)
      Files.writeString(f, text)
    root

  "The unnamed files" should "be those with a def that has a body and that no test names" in {
    val root = tree(
      "main/a/Knee.scala" -> "package a\n\nobject Knee:\n  def of(x: Int): Int = x + 1",
      "main/a/Chart.scala" -> "package a\n\nfinal case class Chart(id: String):\n  def html: String =\n    id",
      "main/a/Plot.scala" -> "package a\n\nobject Plot:\n  def draw(f: Int => Int): Int = f(1)",
      "main/a/Step.scala" -> "package a\n\n/** def in a comment = none */\ncase class Step(i: Int, ok: Boolean)",
      "main/a/Reader.scala" -> "package a\n\ntrait Reader:\n  def read(s: String): Int\n  def ok(a: Int) = a >= 1",
      "main/a/Port.scala" -> "package a\n\ntrait Port:\n  def call(x: Int): Int",
      "test/a/KneeSpec.scala" -> "package a\n\nclass KneeSpec",
      "test/a/ReportSpec.scala" -> "package a\n\n/** Draws a Chart. */\nclass ReportSpec")
    // Knee has its spec, Chart is named in another's scaladoc; Step and Port have no logic; Plot and Reader do.
    UnnamedFiles.of(root.resolve("main"), root.resolve("test")) shouldBe Seq("a/Plot.scala", "a/Reader.scala")
  }

  it should "count a file as named when any one of its top-level types is" in {
    val root = tree(
      "main/a/Run.scala" -> "package a\n\nfinal case class RunOutcome(ok: Boolean)\nobject Run:\n  def go(): Int = 1",
      "test/a/X.scala" -> "package a\n\nval o = RunOutcome(true)")
    UnnamedFiles.of(root.resolve("main"), root.resolve("test")) shouldBe Nil
  }
