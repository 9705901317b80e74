package bulkhead.lab.checks

import scala.concurrent.duration.FiniteDuration

/**
 * When a fault run's OK throughput is back: a 1 s window of OK answers (counted per 100 ms, a
 * [[bulkhead.lab.record.FaultTimeline]]'s `okPerTenth`) at [[RecoveredShare]] of the median before the fault. One rule
 * for its two readers: the verdict, on the recorded run, takes the first such window after the clearing; the fault
 * driver, on the live request log, ends the recovery phase once such windows have followed each other for a steady
 * tail. The live counts are never above the recorded ones (the same requests, some still in flight), so a run the driver
 * ended early holds its recovery in its record, where the verdict finds it again at the same time or earlier.
 */
object Recovery:
  /** Throughput counts as recovered when OK answers over a 1 s window reach this share of the pre-fault median. */
  val RecoveredShare = 0.8
  /** The window, in tenths of a second: a second smooths the waves in which a blocking client's answers come. */
  private val Window = 10

  /** Median OK answers per second before the fault (the first second is the users' ramp and is left out). */
  def baseline(okPerTenth: Seq[Int], injectAt: Double): Double =
    val perSecond = (1 until injectAt.toInt).map(s => okPerTenth.slice(s * Window, s * Window + Window).sum.toDouble)
    if perSecond.isEmpty then 0.0 else perSecond.sorted.apply(perSecond.size / 2)

  /**
   * Seconds from the clearing to the end of the first window, ending a window or more after it, whose OK answers reach
   * the recovered share of the baseline; None if none did among the tenths counted.
   */
  def seconds(okPerTenth: Seq[Int], injectAt: Double, clearAt: Double): Option[Double] =
    val target = baseline(okPerTenth, injectAt) * RecoveredShare
    (firstEnd(clearAt) to okPerTenth.size).find(back(okPerTenth, target, _)).map(end => end / 10.0 - clearAt)

  /**
   * Whether throughput has been back for `tail` by tenth `now` (exclusive: the tenths before it are complete): every
   * window ending from `now` less the tail to `now` is back, the first of them ending a window or more after the
   * clearing. A dip below the share within the tail starts it again. Never with no throughput before the fault: the
   * verdict fails such a run, and an early end would only hide what the rest of the phase shows.
   */
  def steady(okPerTenth: Seq[Int], injectAt: Double, clearAt: Double, tail: FiniteDuration, now: Int): Boolean =
    val base = baseline(okPerTenth, injectAt)
    val from = now - (tail.toMillis / 100).toInt
    base > 0 && from >= firstEnd(clearAt) && now <= okPerTenth.size &&
      (from to now).forall(back(okPerTenth, base * RecoveredShare, _))

  /** The end of the first window after the clearing: a whole window of answers after it. */
  private def firstEnd(clearAt: Double): Int = (clearAt * 10).toInt + Window

  /** Whether the window ending at tenth `end` (exclusive) holds at least `target` OK answers. */
  private def back(okPerTenth: Seq[Int], target: Double, end: Int): Boolean =
    okPerTenth.slice(end - Window, end).sum >= target
