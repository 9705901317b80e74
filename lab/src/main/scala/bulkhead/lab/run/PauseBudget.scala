package bulkhead.lab.run

import scala.concurrent.duration.*

/**
 * The sampling interval, stretched so that the pauses the samples cause stay under `share` of the wall time: each
 * interval is at least the asked `every`, and at least the longest of the last few pauses divided by `share` (a
 * 20 ms dump every 2 s is 1 %). The pauses come from each sample's [[bulkhead.lab.sample.SamplePause]].
 */
final class PauseBudget(every: FiniteDuration, share: Double = PauseBudget.Share):
  require(share > 0 && share < 1, s"share must be in (0, 1), was $share")
  private var recent = Vector.empty[Double]

  /** A sample's pause, in milliseconds. */
  def record(pauseMs: Double): Unit = synchronized {
    recent = (recent :+ pauseMs.max(0)).takeRight(PauseBudget.Remembered)
  }

  /** The interval before the next sample. */
  def interval: FiniteDuration = synchronized {
    val needed = recent.maxOption.fold(0L)(p => math.ceil(p / share).toLong)
    every.max(needed.millis)
  }

object PauseBudget:
  /** Pauses at most 1 % of the wall time. */
  val Share = 0.01
  /** The pauses the interval answers to: a few, so that one long pause (a collection in the window) does not linger. */
  val Remembered = 3
