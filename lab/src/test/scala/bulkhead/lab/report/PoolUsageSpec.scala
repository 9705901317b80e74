package bulkhead.lab.report

import bulkhead.lab.record.RecordJson
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
