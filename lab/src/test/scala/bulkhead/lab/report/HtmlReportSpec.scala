package bulkhead.lab.report

import bulkhead.lab.diagnose.{Diagnosis, Verification}
import bulkhead.lab.record.RunRecord
import bulkhead.lab.testkit.{Fixtures, RenderedReport}
import org.jsoup.nodes.Document
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.nio.file.Path
import scala.jdk.CollectionConverters.*

/**
 * The report of a recorded real run (pool-4 under 16 wrk connections, then its `--verify` re-run), rendered and
 * opened in headless chromium: what a person sees once the page's scripts ran.
 */
@Slow
class HtmlReportSpec extends AnyFlatSpec with Matchers:
  private val report =
    RenderedReport(Path.of(getClass.getResource("/fixtures/records/pool-4-c16-verify-jdk25").toURI), "report-fixture")
  private lazy val rendered: (Path, Seq[RunRecord]) = (report.html, report.records)
  private lazy val page: Document = report.page

  private def f1(d: Double) = f"$d%,.1f"

  "The HTML report" should "open with one card per scenario giving measured against bound, the verdict and the fix" in {
    val records = rendered._2
    val originals = records.filterNot(r => HtmlReport.isRerun(r, records))
    val cards = page.select(".cards > .card").asScala
    cards.map(_.selectFirst("h3").text) shouldBe originals.map(_.info.name)
    originals.zip(cards).foreach { (r, card) =>
      val v = Diagnosis(r)
      card.selectFirst(".big").text shouldBe f1(v.measured)
      card.text should include(s"of ${f1(v.predicted)} bound")
      card.text should include(v.name)
      v.fix.foreach(f => card.text should include(f.flags.mkString(" ")))
    }
  }

  it should "show on the card the re-run's measurement beside what the lab predicted for it" in {
    val checks = Verification.pair(rendered._2)
    checks should not be empty
    checks.foreach { c =>
      val verified = page.selectFirst(s"#card-${Html.id(c.original.info.name)} .verified").text
      verified should include(s"predicted ${f1(c.predicted)} req/s")
      verified should include(s"measured ${f1(c.measured)}")
    }
  }

  it should "draw every chart with data, on canvases of non-zero size" in report.checkCharts()

  it should "chart answers, connections, CPU and the latency distribution for every run, and each busy pool" in {
    rendered._2.foreach { r =>
      val id = Html.id(r.info.name)
      Seq("answers", "concurrency", "cpu", "distribution").foreach(k => page.getElementById(s"$id-$k") should not be null)
      // The pool the run saturated, drawn against the size its executor reported.
      val size = r.samples.flatMap(_.metrics.toSeq.flatMap(_.pools.filter(_.label == "blocking-pool").flatMap(_.max))).max
      val pools = page.select(s"#run-$id .charts.pools .chart h4").asScala.map(_.text)
      pools should contain(f"blocking-pool (size $size%.0f)")
    }
  }

  it should "give every table as a table: a header, and one row per run or per pool" in {
    val records = rendered._2
    report.checkTables()
    val runs = page.selectFirst("#runs + table")
    runs.select("thead th").size should be > 5
    runs.select("tbody tr").asScala.map(_.selectFirst("td").text) should contain theSameElementsAs records.map(_.info.name)
    records.foreach { r =>
      val rows = page.select(s"#run-${Html.id(r.info.name)} table.pools tbody tr").asScala
      val threads = r.samples.flatMap(_.pools.filter(_.pool.endsWith("blocking-pool")).map(_.threads)).max
      rows.find(_.selectFirst("td").text == "blocking-pool").map(_.select("td").get(1).text) shouldBe Some(threads.toString)
      // One pool per row: no cell lists several pools' busy/threads.
      val severalPools = """.*\d+/\d+, .*\d+/\d+.*""".r
      rows.foreach(_.select("td").asScala.foreach(td => severalPools.matches(td.text) shouldBe false))
    }
  }

  it should "show no raw Markdown and load nothing from the network" in report.checkNoMarkdownNoNetwork()

  it should "say that wrk's requests without an answer are counted over the whole run only, not per second" in {
    def notes(r: RunRecord) = HtmlReport.chartsOf(r, Diagnosis(r)).missing.filter(_.startsWith("requests without"))
    val errors = Fixtures.records("errors-host-pool").head
    errors.load.answers.unanswered should be > 0L
    notes(errors) shouldBe Seq(s"requests without an answer per second: not recorded (wrk counts its " +
      s"${errors.load.answers.unanswered} socket errors and timeouts over the whole run only: ${errors.load.answers.describe})")
    notes(Fixtures.records("pool-4-c16-verify-jdk25").head) shouldBe empty
  }

  it should "draw a faults run's charts too: each fault's answers by outcome, its threads and heap, the ramp's" in {
    val faults = RenderedReport(Path.of(getClass.getResource("/fixtures/faults/short-reset-redis-killed-trickle").toURI),
      "faults-report-fixture")
    faults.checkCharts()
    faults.checkTables()
    faults.records.filter(_.fault.isDefined).foreach(r =>
      faults.page.getElementById(s"${Html.id(r.info.name)}-fault-answers").attr("data-points").toInt should be > 10)
  }

  it should "look like a report in a screenshot: a full PNG with charts, not a blank page" in
    report.checkScreenshot(Path.of("target", "report-screenshot.png"), 1400, 3000)
