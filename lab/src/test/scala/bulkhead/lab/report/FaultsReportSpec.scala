package bulkhead.lab.report

import bulkhead.lab.cli.ReportCommand
import bulkhead.lab.record.RequestOutcome
import bulkhead.lab.record.{OutcomeCount, RecordJson, RunRecord}
import bulkhead.lab.testkit.Fixtures
import org.jsoup.Jsoup
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.{Files, Path, StandardCopyOption}
import scala.jdk.CollectionConverters.*

/**
 * A faults run recorded here (`lab faults --only reset,redis-killed,trickle`: three faults in non-blocking mode, the
 * trickle in blocking and virtual mode, the overload ramp) rendered again by `lab report`, and the node-killed run of
 * `lab cluster-faults`: the verdict and the timeline of every fault in the Markdown and in the page.
 */
class FaultsReportSpec extends AnyFlatSpec with Matchers:
  private val source = Path.of(getClass.getResource("/fixtures/faults/short-reset-redis-killed-trickle").toURI)
  private val runs = Seq("non-blocking" -> "reset", "non-blocking" -> "trickle", "non-blocking" -> "redis-killed",
    "blocking" -> "trickle", "virtual" -> "trickle")
  private val names = runs.map((m, f) => s"$m-$f")

  /** The recorded run copied under target/ (rendering writes beside the records) and rendered as `lab report` does. */
  private lazy val rendered: Path =
    val dir = Path.of("target", "faults-report").toAbsolutePath
    Files.walk(source).iterator().asScala.foreach { p =>
      val to = dir.resolve(source.relativize(p).toString)
      if Files.isDirectory(p) then Files.createDirectories(to) else Files.copy(p, to, StandardCopyOption.REPLACE_EXISTING)
    }
    ReportCommand.main(Seq(dir.toString)) shouldBe 0
    dir

  private lazy val records = RecordJson.readAll(source).fold(e => fail(e), identity)

  "lab report on a faults run" should "give the fault matrix with every run's verdict, in the order they ran" in {
    val md = Files.readString(rendered.resolve("README.md"))
    md should include("## Fault matrix: every check passed")
    val rows = md.linesIterator.filter(l => runs.exists((m, f) => l.startsWith(s"| $m | $f |"))).toSeq
    rows.map(_.split('|').map(_.trim).slice(1, 3).mkString("-")) shouldBe names
    rows.foreach(_ should endWith("| pass |"))
  }

  it should "give each service's suite-wide checks, the ramp's table and checks, and each fault's checks" in {
    val md = Files.readString(rendered.resolve("README.md"))
    Seq("non-blocking", "blocking", "virtual").foreach(m =>
      md should include(s"- $m: pass threads from the first fault's start to the last fault's end"))
    md should include("## Overload: 0.5x to 3.0x of max-in-flight 100")
    md should include("| 3.0x | 300 | 200 | 200 |")
    md should include("- pass 503 above the limit: 1.5x: 50 503/s, 2.0x: 100 503/s, 3.0x: 200 503/s")
    md should include("### non-blocking, redis-killed: redis-server killed (SIGKILL), restarted on the same port at clear")
    md should include("- pass answers degraded (loyalty unavailable) while held, whole again after: 800 degraded answers")
    md should include("- answers by status: 200: 1297, 502: 120, 503: 317")
  }

  it should "give each fault run's section its checks and its own charts: answers by outcome, threads and heap" in {
    val page = Jsoup.parse(rendered.resolve(SuiteReport.HtmlFile).toFile, "UTF-8")
    page.select("table.faults tbody tr").asScala.map(_.select("td").asScala.take(2).map(_.text).mkString("-")) shouldBe
      names
    names.foreach { n =>
      val section = page.getElementById(s"run-$n")
      section should not be null
      section.select("table.checks tbody tr").size should be >= 7
      section.getElementById(s"$n-fault-answers") should not be null
      section.getElementById(s"$n-fault-gauges") should not be null
    }
    page.select("table.ramp tbody tr").size shouldBe 5
    // No scenario card for a fault run: its verdict is its checks.
    page.select(".cards > .card").size shouldBe 0
    val data = page.getElementById("report-data").data
    names.foreach(n => data should include(s""""id":"$n-fault-answers""""))
  }

  it should "mark a check that fails in the matrix, the run's section and the verdict" in {
    val broken = records.map(r => if r.info.name == "non-blocking-reset" then
      r.copy(fault = r.fault.map(t => t.copy(totals = t.totals :+ OutcomeCount("steady", RequestOutcome.Status(500), 1))))
      else r)
    val report = FaultsReport.of(broken)
    report.passed shouldBe false
    report.matrixRows.find(_(1) == "reset").get.last shouldBe "FAIL: designed statuses only"
    report.markdown should include("## Fault matrix: SOME CHECKS FAILED")
    report.runHtml(broken.find(_.info.name == "non-blocking-reset").get) should include("SOME CHECKS FAILED")
  }

  "A node killed" should "have its checks and the cluster second by second, as the front saw it" in {
    val run = Fixtures.faultRun("node-killed-slow-restart")
    val report = FaultsReport.of(Seq(run))
    report.matrixRows shouldBe empty
    report.markdown should include("## A node killed (node-killed): SOME CHECKS FAILED")
    report.markdown should include(
      "| second | phase | 200 | 504 | members up | unreachable | routees of 127.0.0.1:45989 | nodes |")
    report.markdown should include("**FAIL** throughput back to 3/3 within 20 s of the restart")
    report.clusterRows(run).map(_(1)).distinct shouldBe Seq("before", "killed", "restarted")
    FaultsReport.charts(run, "node-killed").map(_.id) shouldBe
      Seq("node-killed-fault-answers", "node-killed-fault-gauges", "node-killed-fault-cluster")
  }

  "A node paused" should "name what happened to the nodes in the second it happened" in {
    val run = Fixtures.faultRun("node-paused")
    val report = FaultsReport.of(Seq(run))
    report.markdown should include("## A node paused (node-paused): every check passed")
    val rows = report.clusterRows(run)
    rows.map(_(1)).distinct shouldBe Seq("before", "paused", "restarted")
    rows.find(_(0) == "10").get.last shouldBe "127.0.0.1:44519 SIGSTOP"
    rows.find(_(0) == "27").get.last shouldBe "127.0.0.1:44519 exited 1; 127.0.0.1:44519 starting again"
  }

  "A report of scenario runs" should "have no fault section" in {
    val report = FaultsReport.of(Fixtures.records("pool-4-c16-verify-jdk25"))
    report.checks.isEmpty shouldBe true
    report.markdown shouldBe ""
    report.html shouldBe ""
  }
