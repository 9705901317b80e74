package bulkhead.lab.load

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import scala.concurrent.duration.*

class WarmUpSpec extends AnyFlatSpec with Matchers:
  "WarmUp" should "split a warm-up into 5 s wrk runs, each opening its connections anew" in {
    WarmUp.runs(30.seconds) shouldBe Seq.fill(6)(5.seconds)
  }

  it should "give the remainder its own shorter run" in {
    WarmUp.runs(12.seconds) shouldBe Seq(5.seconds, 5.seconds, 2.seconds)
  }

  it should "run at least one second when asked for less than a run, and nothing when asked for none" in {
    WarmUp.runs(3.seconds) shouldBe Seq(3.seconds)
    WarmUp.runs(500.millis) shouldBe Seq(1.second)
    WarmUp.runs(Duration.Zero) shouldBe Nil
  }
