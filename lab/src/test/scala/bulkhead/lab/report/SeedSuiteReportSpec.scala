package bulkhead.lab.report

import bulkhead.lab.diagnose.Diagnosis
import bulkhead.lab.record.RecordJson
import bulkhead.lab.testkit.RenderedReport
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.nio.file.{Files, Path}
import scala.jdk.CollectionConverters.*
import scala.jdk.StreamConverters.*

/**
 * The report of the newest seed suite kept under docs/results (a run `./bulkhead demo` wrote, curated there), rendered
 * again from its result.json files and opened in headless chromium: a card, the charts and the tables for every
 * scenario, as a person sees the demo's report.
 */
@Slow
class SeedSuiteReportSpec extends AnyFlatSpec with Matchers:
  private val newest: Path =
    val results = Path.of("..", "docs", "results").toAbsolutePath.normalize
    Files.list(results).toScala(Seq).filter(_.getFileName.toString.endsWith("-seed-suite-short"))
      .filter(d => Files.walk(d).toScala(Seq).exists(f => RecordJson.isRecord(f.getFileName.toString)))
      .maxByOption(_.getFileName.toString)
      .getOrElse(fail(s"no seed suite with result.json files under $results: copy a run of ./bulkhead demo there"))
  private val report = RenderedReport(newest, "seed-suite-report")

  "The demo's report" should "give every scenario a card with its measurement, its bound and what caps it" in {
    val originals = report.records.filterNot(r => HtmlReport.isRerun(r, report.records))
    originals.size should be >= 17
    val cards = report.page.select(".cards > .card").asScala
    cards.map(_.selectFirst("h3").text) shouldBe originals.map(_.info.name)
    originals.zip(cards).foreach { (r, card) =>
      val v = Diagnosis(r)
      card.selectFirst(".big").text shouldBe f"${v.measured}%,.1f"
      card.text should include(v.name)
    }
  }

  it should "chart answers, connections, CPU and the latency distribution for every run" in {
    report.records.foreach { r =>
      val id = Html.id(r.info.name)
      Seq("answers", "concurrency", "cpu", "distribution").foreach { k =>
        withClue(s"${r.info.name} $k: ")(report.page.getElementById(s"$id-$k") should not be null)
      }
    }
    report.checkCharts()
  }

  it should "give the seeds' frameworks side by side and every other table as tables, with no raw Markdown" in {
    report.checkTables()
    report.checkNoMarkdownNoNetwork()
    report.page.select("table").size should be > report.records.size
  }

  it should "look like a report in a screenshot" in
    report.checkScreenshot(Path.of("target", "seed-suite-report.png"), 1400, 3000)
