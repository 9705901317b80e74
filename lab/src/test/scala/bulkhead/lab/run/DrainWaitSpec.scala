package bulkhead.lab.run

import bulkhead.lab.model.MetricsReading
import bulkhead.lab.record.Drain
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import scala.concurrent.duration.*

class DrainWaitSpec extends AnyFlatSpec with Matchers:
  /** A service whose readings are `readings(i)` at the i-th scrape (the last one repeated), on a clock `sleep` moves. */
  private final class Readings(readings: Seq[Option[Double]]):
    var now = 0L
    var scrapes = 0
    var told = Seq.empty[Double]
    def read(): Option[Double] =
      val r = readings.lift(scrapes).getOrElse(readings.last)
      scrapes += 1
      r
    def await(cap: FiniteDuration = 10.seconds): Option[Drain] =
      DrainWait.await(() => read(), cap, 200.millis, clock = () => now, sleep = d => now += d.toNanos,
        onWait = n => told :+= n)

  "DrainWait" should "stop waiting as soon as the warm-up's calls have ended" in {
    val service = Readings(Seq(Some(1950.0), Some(1200.0), Some(300.0), Some(0.0)))
    service.await() shouldBe Some(Drain(1950, 0, 0.6, quiet = true))
    service.told shouldBe Seq(1950.0)
  }

  it should "not wait at all on a service already quiet" in {
    val service = Readings(Seq(Some(0.0)))
    service.await() shouldBe Some(Drain(0, 0, 0.0, quiet = true))
    service.scrapes shouldBe 1
    service.told shouldBe empty
  }

  it should "stop at its cap on a service that never drains, and say what was left" in {
    val service = Readings(Seq(Some(2000.0), Some(40.0)))
    service.await(cap = 3.seconds) shouldBe Some(Drain(2000, 40, 3.0, quiet = false))
    service.scrapes shouldBe 16 // the first reading and one every 200 ms for 3 s
  }

  it should "not wait for a target without the gauges" in {
    val service = Readings(Seq(None, Some(5.0)))
    service.await() shouldBe None
    service.scrapes shouldBe 1
    service.now shouldBe 0L
  }

  it should "pause a target without the gauges for the last load's longest answer, within its bounds" in {
    DrainWait.withoutGauges(Some(1230.millis)) shouldBe 1230.millis
    DrainWait.withoutGauges(Some(1230.millis), atLeast = 5.seconds) shouldBe 5.seconds
    DrainWait.withoutGauges(Some(9.minutes)) shouldBe DrainWait.Cap
    DrainWait.withoutGauges(None) shouldBe Duration.Zero
  }

  it should "keep the last reading through a failed scrape" in {
    val service = Readings(Seq(Some(10.0), None, Some(0.0)))
    service.await() shouldBe Some(Drain(10, 0, 0.4, quiet = true))
  }

  it should "count a request and its SOAP call once, and /work requests beside them" in {
    def reading(text: String) = DrainWait.inFlight(MetricsReading.parse(text))
    reading("""soap_client_in_flight_calls 1890
              |soap_client_waiting_calls 10
              |enrichment_in_flight 1950
              |work_in_flight{mode="pool"} 3
              |work_in_flight{mode="default"} 2""".stripMargin) shouldBe Some(1955.0)
    reading("""soap_client_in_flight_calls 1890
              |soap_client_waiting_calls 100""".stripMargin) shouldBe Some(1990.0)
    reading("""http_server_connections_open 12""") shouldBe None
    reading("") shouldBe None
  }
