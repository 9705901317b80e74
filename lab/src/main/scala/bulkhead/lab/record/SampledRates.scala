package bulkhead.lab.record

import bulkhead.lab.model.LoadSecond
import bulkhead.lab.sample.Sample

/**
 * The answers per second in the stretch of the load its samples read: from the second of the first sample inside the
 * load up to that of the last one (`from` included, `to` not). Little's law holds each resource's occupancy, read in
 * those samples, against the rate of the same stretch; the whole run's average also counts its edges, which a short
 * run at a thousand connections makes material (row 4 of the seeds: 8,800 req/s over its 20 s, 9,414 between its
 * samples, where its pool of 1,000 threads bounded it at 9,370).
 */
final case class SampledRates(expected: Double, answered: Double, from: Int, to: Int)

object SampledRates:
  /** The fewest whole seconds the samples must span for their stretch's rate to be read; fewer, and the run's is. */
  val MinSeconds: Int = 3

  /**
   * The rates of the stretch between the first and the last of `inside` (the samples between the load's edges), from
   * the driver's answers counted second by second (a second without any counts none). Up to the last sample's second,
   * not through it: each stretch between two samples then holds one sample's own cost (a dump of a thousand threads
   * slows the service for a moment), as the whole run does. None with fewer than two samples inside, over fewer than
   * [[MinSeconds]], or from a driver without counts per second (or whose counts end before the stretch does).
   */
  def of(seconds: Seq[LoadSecond], inside: Seq[Sample], expectedClass: String): Option[SampledRates] =
    val times = inside.map(_.second)
    if times.size < 2 || seconds.isEmpty then None
    else
      val from = math.floor(times.min).toInt
      val to = math.floor(times.max).toInt
      val counted = seconds.filter(s => s.second >= from && s.second < to)
      Option.when(to - from >= MinSeconds && seconds.map(_.second).max >= to - 1) {
        val n = (to - from).toDouble
        SampledRates(counted.map(_.byClass.getOrElse(expectedClass, 0L)).sum / n, counted.map(_.byClass.values.sum).sum / n,
          from, to)
      }
