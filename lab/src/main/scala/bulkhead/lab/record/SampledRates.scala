package bulkhead.lab.record

import bulkhead.lab.model.LoadSecond
import bulkhead.lab.sample.Sample

/**
 * The answers per second in the stretch of the load its samples read: from the first sample inside the load to the last
 * one, `from` to `to` seconds after it started. Little's law holds each resource's occupancy, read in those samples,
 * against the rate of the same stretch; the whole run's average also counts its edges, which a short run at a thousand
 * connections makes material (row 4 of the seeds: 8,800 req/s over its 20 s, 9,414 between its samples, where its pool
 * of 1,000 threads bounded it at 9,370).
 */
final case class SampledRates(expected: Double, answered: Double, from: Double, to: Double)

object SampledRates:
  /** The fewest seconds the samples must span for their stretch's rate to be read; fewer, and the run's is. */
  val MinSeconds: Int = 3

  /**
   * The rates of the stretch between the first and the last of `inside` (the samples between the load's edges), from
   * the driver's answers counted second by second (a second without any counts none), each second counted for the
   * share of it inside the stretch: samples taken a hair before a second's end (0.9994 s) must not count the second
   * the connections opened in. Each stretch between two samples holds one sample's own cost (a dump of a thousand
   * threads slows the service for a moment), as the whole run does. None with fewer than two samples inside, over
   * fewer than [[MinSeconds]], or from a driver without counts per second (or whose counts end before the stretch does).
   */
  def of(seconds: Seq[LoadSecond], inside: Seq[Sample], expectedClass: String): Option[SampledRates] =
    val times = inside.map(_.second)
    if times.size < 2 || seconds.isEmpty then None
    else
      val (from, to) = (times.min, times.max)
      def share(s: LoadSecond) = (to.min(s.second + 1.0) - from.max(s.second.toDouble)).max(0.0)
      def rate(count: LoadSecond => Long) = seconds.map(s => count(s) * share(s)).sum / (to - from)
      Option.when(to - from >= MinSeconds && seconds.map(_.second).max + 1 >= math.floor(to)) {
        SampledRates(rate(_.byClass.getOrElse(expectedClass, 0L)), rate(_.byClass.values.sum), from, to)
      }
