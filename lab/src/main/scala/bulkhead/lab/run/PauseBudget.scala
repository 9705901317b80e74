package bulkhead.lab.run

import scala.concurrent.duration.*

/**
 * The sampling interval, stretched so that the pauses the samples cause stay under `share` of the wall time: the wait
 * after a sample is at least the asked `every`, and at least that sample's pause divided by `share` (a 20 ms dump is
 * followed by 2 s), so that every pause is paid for by the wait after it. The pauses come from each sample's
 * [[bulkhead.lab.sample.SamplePause]].
 */
final class PauseBudget(every: FiniteDuration, share: Double = PauseBudget.Share):
  require(share > 0 && share < 1, s"share must be in (0, 1), was $share")
  @volatile private var last = 0.0

  /** A sample's pause, in milliseconds. */
  def record(pauseMs: Double): Unit = last = pauseMs.max(0)

  /** The interval before the next sample. */
  def interval: FiniteDuration = every.max(math.ceil(last / share).toLong.millis)

object PauseBudget:
  /** Pauses at most 1 % of the wall time. */
  val Share = 0.01
