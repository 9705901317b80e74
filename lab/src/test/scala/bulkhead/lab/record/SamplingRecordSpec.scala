package bulkhead.lab.record

import bulkhead.lab.sample.{Sample, SamplePause, SamplingSource}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/** What a run's sampling did to the JVM, summed from its samples' pauses. */
class SamplingRecordSpec extends AnyFlatSpec with Matchers:
  private def sample(second: Double, pauseMs: Double) =
    Sample(second, Nil, None, None, None, None, None, None, pause = Some(SamplePause(pauseMs, 2, SamplePause.BySafepoints)))

  "SamplingRecord" should "sum the samples' pauses as a share of the run, and say it with its source and interval" in {
    val source = SamplingSource("25.0.3", SamplingSource.ClassicDump, Some(SamplingSource.JfrAttach), "why")
    val r = SamplingRecord.of(Some(source), 1000, 2500, Seq(sample(0, 10), sample(1, 25), sample(3.5, 5)), 10.0, 0.01)
    (r.samples, r.pausesMs, r.pausedShare, r.pauseMeasuredBy) shouldBe (3, 40.0, 0.004, Some(SamplePause.BySafepoints))
    r.describe shouldBe s"Thread.print -l + ${SamplingSource.JfrAttach}, every 1,000 ms (stretched up to 2,500 ms), " +
      "3 samples stopped the JVM 40.0 ms in all, 0.40 % of the run (budget 1 %)"
  }
