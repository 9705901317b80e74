package bulkhead.lab.report

import bulkhead.lab.diagnose.Diagnosis
import bulkhead.lab.model.{MetricsReading, PoolGauge}
import bulkhead.lab.record.RecordJson
import bulkhead.lab.sample.{JsonThreadDump, PoolSample}
import bulkhead.lab.testkit.{Fixtures, Records}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.Path

/** The service's pools in a recorded real run: the saturated one first, the JVM's own threads left out. */
class PoolUsageSpec extends AnyFlatSpec with Matchers:
  private val records = RecordJson.readAll(Path.of(getClass.getResource("/fixtures/records/pool-4-c16-verify-jdk25")
    .toURI)).fold(e => fail(e), identity)
  private val pool4 = records.find(_.info.name == "pool-4").get

  "PoolUsage" should "put the saturated pool first, with the size its executor reports" in {
    val pools = PoolUsage.of(pool4)
    pools.head.shortName shouldBe "blocking-pool"
    pools.head.size shouldBe Some(4.0)
    pools.head.peakShare shouldBe 1.0
  }

  it should "join a pool's thread dump and its gauges by the name's configuration path" in {
    val blocking = PoolUsage.of(pool4).head
    blocking.name shouldBe "bulkhead-bulkhead.dispatch.blocking-pool"
    blocking.busy should not be empty
    blocking.active should not be empty
  }

  it should "leave out the JVM's own threads" in {
    val names = PoolUsage.of(pool4).map(_.name)
    names.filter(n => n.contains("CompilerThread") || n == "main" || n == "Signal Dispatcher") shouldBe empty
  }

  it should "write one row per pool with its threads and busy threads over the measured phase" in {
    val row = PoolUsage.of(pool4).head.row(pool4.measuredSamples)
    row.take(3) shouldBe Seq("blocking-pool", "4", "4 / 4")
  }

  it should "show virtual threads as the pool their gauges name, without a size, charted when they held work" in {
    val dump = JsonThreadDump.parse(Fixtures.text("threaddump-virtual200-c20-1-jdk25.json")).fold(e => fail(e), identity)
    val gauges = (t: Int) => Some(MetricsReading(Seq(PoolGauge("virtual-pool", Some(20), None, Some(100.0 * t), None)),
      Map("2xx" -> 100.0 * t), None, None, None, None, None, None, Map.empty))
    val run = Records.run(clients = 20, seconds = 10, answers = Map("2xx" -> 1000), meanMs = 200,
      pools = PoolSample.of(dump), metrics = gauges)
    val virtual = PoolUsage.of(run).find(_.shortName == "virtual-pool").get
    virtual.name shouldBe "bulkhead-bulkhead.dispatch.virtual-pool"
    (virtual.virtual, virtual.size, virtual.peakShare) shouldBe (true, None, 0.0)
    virtual.busy.map(_._2).distinct shouldBe Seq(20.0)
    virtual.active.map(_._2).distinct shouldBe Seq(20.0)
    HtmlReport.chartsOf(run, Diagnosis(run)).pools.map(_.title) should contain("virtual-pool (virtual threads)")
  }
