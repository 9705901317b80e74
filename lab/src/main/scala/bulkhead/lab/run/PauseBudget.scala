package bulkhead.lab.run

import bulkhead.lab.record.LoadWindow

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

  /**
   * The interval before the next sample of a load measured from `from` to `to` seconds after it started, at `now`,
   * with `inside` samples taken inside it so far: the budget's, shortened while the load still lacks
   * [[PauseBudget.MinInside]] samples so that they fall in it, evenly over what is left of it (never shorter than the
   * asked `every`). A pause that asks for more wait than the load has left would otherwise leave the load unsampled:
   * the first thread dump of a cold JVM with a thousand threads stopped it 280 ms, the budget asked 28 s before the
   * next, and a 20 s load was read from its start alone, when no request had arrived yet. The pauses then take more
   * than the budget's share of the run, which the run's [[bulkhead.lab.record.SamplingRecord]] says.
   */
  def within(now: Double, from: Double, to: Double, inside: Int): FiniteDuration =
    val wanted = PauseBudget.MinInside - inside
    val start = now.max(from)
    val left = to - LoadWindow.Slack - start
    if wanted <= 0 || left <= 0 then interval
    else
      val step = left / (wanted + 1)
      interval.min(every.max(math.ceil((start - now + step) * 1000).toLong.millis))

object PauseBudget:
  /** Pauses at most 1 % of the wall time. */
  val Share = 0.01
  /** The samples a load gets inside it whatever its pauses cost, if it lasts long enough for them at `every`. */
  val MinInside = 3
