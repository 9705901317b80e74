package bulkhead.lab.run

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/** Progress of a long command on a clock the test moves. */
class ProgressSpec extends AnyFlatSpec with Matchers:
  private final class Clock:
    var nanos = 0L
    def advance(seconds: Double): Unit = nanos += (seconds * 1e9).toLong

  "Progress" should "give the step, the time elapsed, the time left and the step's own estimate" in {
    val clock = Clock()
    val p = Progress(Seq(30, 30, 60), () => clock.nanos)
    p.start(0) shouldBe "[1/3, 0 s elapsed, ~2.0 min left; this step ~30 s]"
    clock.advance(10)
    p.status shouldBe "step 10 s of ~30 s, ~1.8 min left in all"
  }

  it should "scale what is left by how long the finished steps took against their estimates" in {
    val clock = Clock()
    val p = Progress(Seq(30, 30, 60), () => clock.nanos)
    p.start(0)
    clock.advance(60) // twice the estimate: the rest will likely take twice theirs too
    p.start(1) shouldBe "[2/3, 60 s elapsed, ~3.0 min left; this step ~60 s]"
    clock.advance(60)
    p.start(2)
    clock.advance(80)
    p.finish() shouldBe "done in 80 s"
    p.left shouldBe 0.0
  }

  it should "refuse a step that does not exist" in {
    an[IllegalArgumentException] should be thrownBy Progress(Seq(1.0)).start(1)
  }
