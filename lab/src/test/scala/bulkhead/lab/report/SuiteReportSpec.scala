package bulkhead.lab.report

import bulkhead.lab.diagnose.Verification
import bulkhead.lab.process.Environment
import bulkhead.lab.record.RecordJson
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.Path

/** The Markdown report of a recorded real run: tables a repository renders as tables, and the way to the charts. */
class SuiteReportSpec extends AnyFlatSpec with Matchers:
  private val dir = Path.of(getClass.getResource("/fixtures/records/pool-4-c16-verify-jdk25").toURI)
  private val records = RecordJson.readAll(dir).fold(e => fail(e), identity)
  private val report = SuiteReport("bulkhead: pool-4", "./bulkhead lab report fixture", Environment.readFrom(dir).get,
    records, Nil)

  /** The Markdown tables of a text: runs of lines starting with `|`. */
  private def tables(md: String): Seq[Seq[String]] =
    md.linesIterator.foldLeft(Vector(Vector.empty[String])) { (acc, l) =>
      if l.startsWith("|") then acc.init :+ (acc.last :+ l) else if acc.last.isEmpty then acc else acc :+ Vector.empty
    }.filter(_.nonEmpty)

  "SuiteReport" should "write every table as a Markdown table: header, separator, rows of the same width" in {
    val ts = tables(report.markdown)
    // Every run, the verified fixes, then each run's pools.
    ts.size shouldBe 1 + (if Verification.pair(records).nonEmpty then 1 else 0) + records.size
    ts.foreach { t =>
      t.size should be >= 3
      t(1) should startWith("| ---")
      t.map(_.count(_ == '|')).distinct should have size 1
    }
  }

  it should "list the pools of a run one per row, not in one cell" in {
    val pools = tables(report.markdown).filter(_.head.startsWith("| pool |"))
    pools should have size records.size
    records.zip(pools).foreach { (r, t) =>
      t.drop(2).map(_.split('|').map(_.trim).apply(1)) should contain("blocking-pool")
      t.foreach(_ should not include "/4, ")
    }
  }

  it should "point to the HTML report for the charts" in {
    report.markdown should include(s"(${SuiteReport.HtmlFile})")
    report.markdown should not include ".png"
  }
