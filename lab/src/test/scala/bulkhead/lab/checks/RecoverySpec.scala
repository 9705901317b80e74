package bulkhead.lab.checks

import bulkhead.lab.record.{FaultTimeline, RequestLog, RequestOutcome}
import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import scala.concurrent.duration.*

/**
 * The recovery rule, read as the verdict reads a recorded run and as the fault driver reads its live request log: on
 * synthetic logs (200 OK a second before a fault injected at 2 s and cleared at 5 s) and on a recorded run.
 */
class RecoverySpec extends AnyFlatSpec with Matchers:
  private val tail = 2.seconds
  private val (injectAt, clearAt) = (2.0, 5.0)
  /** The longest recovery phase, as the short form's: 5.5 s after the clearing, in tenths of the run. */
  private val maxTenth = 105

  /** A request log with `rate(tenth)` OK answers ending in each tenth of a second, to tenth `tenths`. */
  private def log(tenths: Int)(rate: Int => Int): Seq[RequestLog.Entry] =
    (0 until tenths).flatMap(t => (0 until rate(t)).map(i =>
      val end = t / 10.0 + (i + 0.5) / (rate(t) * 10.0)
      RequestLog.Entry("steady", end - 0.5, end, 500.0, RequestOutcome.Status(200), None)))

  /** 20 OK a tenth, none while the fault is held and until `back` (a tenth), then 20 again but in `dip`. */
  private def run(back: Int, dip: Range = 0 until 0): Seq[RequestLog.Entry] =
    log(maxTenth + 10)(t => if t >= 20 && t < back || dip.contains(t) then 0 else 20)

  /** What the driver sees at tenth `now`: the log's answers ended so far, counted as it counts them. */
  private def live(entries: Seq[RequestLog.Entry], now: Int) =
    FaultTimeline.okPerTenth(entries.filter(_.endSecond < now / 10.0), now + 1)

  /** The tenth the driver ends the recovery phase at: the first at which the rule holds, else the phase's end. */
  private def end(entries: Seq[RequestLog.Entry]): Int =
    (50 to maxTenth).find(now => Recovery.steady(live(entries, now), injectAt, clearAt, tail, now)).getOrElse(maxTenth)

  /** The verdict's recovery time on the run recorded until tenth `until`. */
  private def recorded(entries: Seq[RequestLog.Entry], until: Int) =
    val t = FaultTimeline.okPerTenth(entries.filter(_.endSecond < until / 10.0), until + 1)
    Recovery.seconds(t, injectAt, clearAt)

  "Recovery" should "end a run that recovers early once it has been back for the tail, the verdict's time unchanged" in {
    val back = run(back = 60)
    // The first window at 80 % of 200 ends at 6.8 s (8 tenths of 20 since 6.0 s): 1.8 s after the clearing.
    recorded(back, maxTenth).get shouldBe 1.8 +- 1e-9
    end(back) shouldBe 68 + 20
    recorded(back, end(back)) shouldBe recorded(back, maxTenth)
    Recovery.steady(live(back, 87), injectAt, clearAt, tail, 87) shouldBe false
  }

  it should "never end a run that does not recover: it runs to the phase's end, and the verdict still fails it" in {
    val never = run(back = Int.MaxValue)
    end(never) shouldBe maxTenth
    recorded(never, maxTenth) shouldBe None
    // Back only at 80 % less one answer a second: not recovered.
    val short = log(maxTenth)(t => if t < 20 then 20 else if t < 50 then 0 else if t % 10 == 0 then 15 else 16)
    end(short) shouldBe maxTenth
    recorded(short, maxTenth) shouldBe None
  }

  it should "wait when the throughput dips again within the tail, and start the tail again once it is back" in {
    val dipped = run(back = 60, dip = 70 until 74)
    recorded(dipped, maxTenth).get shouldBe 1.8 +- 1e-9
    // The windows ending 7.3..8.1 s hold three or four silent tenths (under 160): back again at 8.2 s, then 2 s more.
    end(dipped) shouldBe 82 + 20
    recorded(dipped, end(dipped)) shouldBe recorded(dipped, maxTenth)
    val shortDip = run(back = 60, dip = 75 until 76)
    // 180 of 200: still back, the tail goes on.
    end(shortDip) shouldBe 88
  }

  it should "not end early when the run had no throughput before the fault" in {
    val none = log(maxTenth)(t => if t < 20 then 0 else 20)
    end(none) shouldBe maxTenth
  }

  it should "find on a recorded run the verdict's recovery time, and end the run the tail after it" in {
    val reset = Fixtures.faultRun("reset").fault.get
    val ok = reset.okPerTenth
    val verdict = FaultChecks.recoverySeconds(reset).get
    val ends = ((reset.clearAt * 10).toInt to ok.size).find(now =>
      Recovery.steady(ok.take(now) :+ 0, reset.injectAt, reset.clearAt, tail, now))
    val endTenth = ends.get
    endTenth / 10.0 - reset.clearAt should be >= verdict + tail.toMillis / 1000.0 - 1e-9
    Recovery.seconds(ok.take(endTenth) :+ 0, reset.injectAt, reset.clearAt) shouldBe Some(verdict)
  }
