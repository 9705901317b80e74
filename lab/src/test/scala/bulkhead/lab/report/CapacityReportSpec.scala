package bulkhead.lab.report

import bulkhead.lab.diagnose.CapacityCurve
import bulkhead.lab.process.Environment
import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/** A recorded capacity curve rendered: its table, the README's section and the HTML report's charts. */
class CapacityReportSpec extends AnyFlatSpec with Matchers:
  private val records = Fixtures.records("capacity-blocking-pool")
  private val curve = CapacityCurve.of(records).head

  "CapacityReport" should "list the closed loop and each step, the knee marked, with each step's pool occupancy" in {
    val rows = CapacityReport.rows(curve)
    rows.size shouldBe 7
    rows.head.head shouldBe "closed loop"
    rows.map(_.head).filter(_.contains("knee")) shouldBe Seq("5 (knee)")
    rows.last(9) should include("blocking-pool 8.0/8")
    rows(1)(9) should include("blocking-pool 2.0/8")
    rows.last(10) should include("pool blocking-pool")
  }

  it should "write a README section with the knee beside the cap, and none for a run without a curve" in {
    val md = CapacityReport.markdown(records)
    md should include("## Capacity")
    md should include("knee at step 5")
    md should include("Little's-law cap 31.9 req/s (pool blocking-pool, the closed loop's diagnosis)")
    md.linesIterator.count(_.startsWith("| ")) shouldBe 9 // header, rule, the closed loop, six steps
    CapacityReport.markdown(Fixtures.records("pool-4-queueing")) shouldBe ""
  }

  "The HTML report" should "chart offered against answered and the latency percentiles per step, x the offered rate" in {
    val charts = HtmlReport.capacityCharts(curve)
    charts.map(_.kind).distinct shouldBe Seq(Chart.Rate)
    val throughput = charts.head
    throughput.series.map(_.label) should contain allOf ("offered", "answered as expected")
    throughput.series.find(_.label.startsWith("cap pool blocking-pool")) shouldBe defined
    charts(1).series.map(_.label) shouldBe Seq("p50", "p99", "p99.9")
    charts(1).series.foreach(_.points.size shouldBe 6)
    val html = HtmlReport(SuiteReport("t", "t", Environment("cpu", 2, 1, "k", "25", "wrk", "redis", Nil), records, Nil))
      .render
    html should include("id=\"capacity-capacity-blocking-pool\"")
    html should include(s"id=\"${throughput.id}\"")
    // The steps are read on the curve: only the closed loop keeps a card.
    "class=\"card\"".r.findAllIn(html).size shouldBe 1
  }
