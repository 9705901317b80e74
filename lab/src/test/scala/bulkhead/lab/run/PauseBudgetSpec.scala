package bulkhead.lab.run

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import scala.concurrent.duration.*

/** The sampling interval stretched so that the samples' pauses stay under 1 % of the time. */
class PauseBudgetSpec extends AnyFlatSpec with Matchers:
  "PauseBudget" should "keep the asked interval while the pauses fit in 1 % of it" in {
    val b = PauseBudget(1.second)
    b.interval shouldBe 1.second
    b.record(8.0)
    b.interval shouldBe 1.second
  }

  it should "stretch the wait after a sample to 100 times its pause, and shrink back when pauses shorten" in {
    val b = PauseBudget(1.second)
    b.record(25.0)
    b.interval shouldBe 2500.millis
    b.record(2.0)
    b.interval shouldBe 1.second
  }

  it should "refuse a share that is no share" in {
    an[IllegalArgumentException] should be thrownBy PauseBudget(1.second, 0)
  }

  "PauseBudget within a load" should "shorten a stretched wait so that the load still gets three samples inside it" in {
    // A cold JVM's first dump of ~1,050 threads stopped it 280 ms at second 0 of a 20 s load: the budget asks 28 s.
    val b = PauseBudget(1.second)
    b.record(280.0)
    b.interval shouldBe 28.seconds
    // 19.2 s left before the load's last half second: three samples 4.8 s apart.
    b.within(now = 0.3, from = 0, to = 20, inside = 0) shouldBe 4800.millis
    b.within(now = 5.1, from = 0, to = 20, inside = 1) shouldBe 4800.millis
  }

  it should "keep the budget's wait once the load has its samples, or when it is over" in {
    val b = PauseBudget(1.second)
    b.record(280.0)
    b.within(now = 15, from = 0, to = 20, inside = 3) shouldBe 28.seconds
    b.within(now = 19.8, from = 0, to = 20, inside = 1) shouldBe 28.seconds
  }

  it should "never sample more often than asked, nor later than the budget's wait" in {
    val b = PauseBudget(2.seconds)
    b.record(30.0)
    b.within(now = 0, from = 0, to = 4, inside = 0) shouldBe 2.seconds
    b.record(5.0)
    b.within(now = 0, from = 0, to = 60, inside = 0) shouldBe 2.seconds
  }

  it should "wait for a ramp's measured phase before counting the samples it needs" in {
    val b = PauseBudget(1.second)
    b.record(500.0)
    // From second 2 into a phase of 10 to 30: 19.5 s left from 10, three samples 4.875 s apart, the first at 14.875.
    b.within(now = 2, from = 10, to = 30, inside = 0) shouldBe 12875.millis
  }
