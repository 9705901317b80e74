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
