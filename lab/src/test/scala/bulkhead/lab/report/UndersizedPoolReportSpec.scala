package bulkhead.lab.report

import bulkhead.lab.process.Environment
import bulkhead.lab.record.RecordJson
import bulkhead.lab.testkit.Scratch
import org.jsoup.Jsoup
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.{Files, Path}
import scala.jdk.CollectionConverters.*

/**
 * The undersized pool as `lab faults --only undersized-pool` recorded it (lab/src/test/resources/fixtures/faults/
 * undersized-pool), rendered: a row per SOAP mode with its cap, its answers and refusals, and every check.
 */
class UndersizedPoolReportSpec extends AnyFlatSpec with Matchers:
  private val dir = Path.of(getClass.getResource("/fixtures/faults/undersized-pool").toURI)
  private val records = RecordJson.readAll(dir).fold(e => fail(e), identity)
  private val report = FaultsReport.of(records)
  private val modes = Seq("non-blocking", "blocking", "virtual")

  "The faults report of an undersized pool" should "give a row per SOAP mode with its cap, answers and refusals" in {
    report.passed shouldBe true
    val rows = report.undersizedRows
    rows.map(_.head).sorted shouldBe modes.sorted
    rows.foreach { r =>
      val g = records.flatMap(_.goodput).find(_.mode == r.head).get
      val cells = report.undersizedHeader.zip(r).toMap
      cells("slots") shouldBe "8"
      cells("cap /s") shouldBe "8"
      cells("200/s") shouldBe f"${g.okPerSecond}%.2f"
      cells("200") shouldBe g.ok.toString
      cells("503") shouldBe g.refused.toString
      cells("other") shouldBe "0"
      cells("breaker openings") shouldBe "0"
      cells("verdict") shouldBe "pass"
    }
  }

  it should "say in Markdown what ran and list every mode's checks, passed" in {
    val md = report.markdown
    md should include("## The undersized pool: every check passed")
    md should include("| mode | slots | third party | users | cap /s | 200/s |")
    modes.foreach { m =>
      md should include(s"- $m: pass answers at 0.9 of the cap or better:")
      md should include(s"- $m: pass circuit breaker never opened: 0 openings")
    }
    md should not include "@@"
  }

  it should "give the page its table and checks, and no scenario card for its runs" in {
    val out = Scratch.dir("undersized-report")
    val file = SuiteReport("undersized", "lab faults --only undersized-pool", Environment("test", 2, 1, "-", "-", "-",
      "-", Nil), records, Nil).write(out)
    val page = Jsoup.parse(file.resolveSibling(SuiteReport.HtmlFile).toFile, "UTF-8")
    page.select("table.undersized tbody tr").asScala.map(_.select("td").first.text).sorted shouldBe modes.sorted
    page.getElementById("undersized") should not be null
    page.select(".cards > .card").size shouldBe 0
    Files.readString(file) should include("## The undersized pool: every check passed")
  }
