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

  /** A JVM whose JIT takes `shares(i)` of a core during run i (5 s runs), as its compiler threads' CPU seconds. */
  private final class FakeJit(shares: Seq[Double]):
    var runs = 0
    var seconds = 0.0
    def read(): Option[Double] = Some(seconds)
    /** Each run's longest answer: 100 ms more than the run before. */
    def once(length: FiniteDuration): Option[FiniteDuration] =
      seconds += shares.lift(runs).getOrElse(shares.last) * length.toUnit(SECONDS)
      runs += 1
      Some((runs * 100).millis)

  it should "go on in 5 s runs while the JIT still compiles, and stop once it has settled" in {
    val jit = FakeJit(Seq(0.5, 0.4, 0.2, 0.2, 0.1, 0.05, 0.01))
    var extra = Seq.empty[Double]
    WarmUp.warm(20.seconds, jit.once, jit.read, onExtra = share => extra :+= share) shouldBe
      WarmedUp(35.seconds, Some(700.millis))
    jit.runs shouldBe 7
    extra.head shouldBe 0.2 +- 1e-9
    extra.last shouldBe 0.05 +- 1e-9
  }

  it should "stop at its extra limit when the JIT never settles, and add nothing when it has" in {
    val busy = FakeJit(Seq(0.5))
    WarmUp.warm(30.seconds, busy.once, busy.read).ran shouldBe 60.seconds
    val busyShort = FakeJit(Seq(0.5))
    WarmUp.warm(10.seconds, busyShort.once, busyShort.read).ran shouldBe 20.seconds
    val settled = FakeJit(Seq(0.5, 0.01))
    WarmUp.warm(10.seconds, settled.once, settled.read).ran shouldBe 10.seconds
    val notJvm = FakeJit(Seq(0.5))
    WarmUp.warm(10.seconds, notJvm.once, () => None).ran shouldBe 10.seconds
  }
