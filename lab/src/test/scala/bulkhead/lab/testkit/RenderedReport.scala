package bulkhead.lab.testkit

import bulkhead.lab.process.Environment
import bulkhead.lab.record.{RecordJson, RunRecord}
import bulkhead.lab.report.SuiteReport
import org.jsoup.Jsoup
import org.jsoup.nodes.Document
import org.scalatest.Assertions.fail
import org.scalatest.matchers.should.Matchers.*

import java.nio.file.{Files, Path, StandardCopyOption}
import javax.imageio.ImageIO
import scala.jdk.CollectionConverters.*

/**
 * A directory of recorded runs copied under target/ (rendering writes beside the records), rendered as `lab report`
 * does, and opened in headless chromium: the page a person sees once its scripts ran.
 */
final class RenderedReport(source: Path, name: String):
  private lazy val rendered: (Path, Seq[RunRecord]) =
    val dir = Path.of("target", name).toAbsolutePath
    // A copy left by an earlier build may hold records since replaced (result.json then gzipped): they would be read
    // beside the new ones.
    if Files.exists(dir) then
      val old = Files.walk(dir)
      try old.iterator().asScala.toSeq.reverse.foreach(Files.delete)
      finally old.close()
    Files.walk(source).iterator().asScala.foreach { p =>
      val to = dir.resolve(source.relativize(p).toString)
      if Files.isDirectory(p) then Files.createDirectories(to) else Files.copy(p, to, StandardCopyOption.REPLACE_EXISTING)
    }
    val read = RecordJson.readAll(dir).fold(e => fail(e), identity).sortBy(_.info.name)
    val env = Environment.readFrom(dir).getOrElse(fail(s"$source has no environment.json"))
    SuiteReport(s"bulkhead: $name", s"./bulkhead lab report $name", env, read, Nil).write(dir)
    (dir.resolve(SuiteReport.HtmlFile), read)

  def html: Path = rendered._1
  def records: Seq[RunRecord] = rendered._2

  lazy val page: Document = Jsoup.parse(Chromium.dom(html).fold(e => fail(e), identity))

  /** Every chart drawn with data, on a canvas of non-zero size. */
  def checkCharts(): Unit =
    val charts = page.select(".chart").asScala
    charts should not be empty
    charts.foreach { c =>
      withClue(s"chart ${c.id}: ") {
        c.attr("data-series").toIntOption.getOrElse(0) should be > 0
        c.attr("data-points").toIntOption.getOrElse(0) should be > 0
        val canvas = c.selectFirst("canvas")
        canvas should not be null
        canvas.attr("width").toInt should be > 0
        canvas.attr("height").toInt should be > 0
      }
    }

  /** Every table has rows beneath its header. */
  def checkTables(): Unit =
    page.select("table").asScala.foreach(t => withClue(t.outerHtml.take(200)) { t.select("tr").size should be > 1 })

  /** No Markdown left as text, nothing loaded from the network. */
  def checkNoMarkdownNoNetwork(): Unit =
    val text = page.body.text
    Seq("| ---", "**", "![", "](").foreach(m => text should not include m)
    page.select("script[src], link[href], img[src]").asScala.map(_.outerHtml) shouldBe empty

  /** A full screenshot of `width` x `height` with many colours (charts, not a blank page); the PNG's path. */
  def checkScreenshot(png: Path, width: Int, height: Int): Path =
    val shot = Chromium.screenshot(html, png, width, height).fold(e => fail(e), identity)
    val image = ImageIO.read(shot.toFile)
    image should not be null
    (image.getWidth, image.getHeight) shouldBe (width, height)
    val colours = (for x <- 0 until image.getWidth by 7; y <- 0 until image.getHeight by 7 yield image.getRGB(x, y)).toSet
    colours.size should be > 50
    shot
