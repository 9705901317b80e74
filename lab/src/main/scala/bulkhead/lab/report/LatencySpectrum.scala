package bulkhead.lab.report

import bulkhead.lab.model.Latencies

/**
 * A latency distribution as HdrHistogram plots it: the latency at each percentile, with the percentile in "nines"
 * (0 = 0 %, 1 = 90 %, 2 = 99 %, 3 = 99.9 %) so the tail gets as much room as the median.
 */
object LatencySpectrum:
  private val Step = 0.05

  /** `nines` -> percentile (0..100). */
  def percentile(nines: Double): Double = 100.0 * (1 - math.pow(10, -nines))

  /** (nines, ms) points up to the deepest percentile the count resolves (99.9 % needs 1,000 answers), then the max. */
  def points(l: Latencies): Seq[(Double, Double)] =
    if l.count == 0 then Nil
    else
      val h = l.decode
      val deepest = math.log10(l.count.toDouble).max(Step)
      val steps = (0 to (deepest / Step).toInt).map(_ * Step)
      steps.map(n => n -> h.getValueAtPercentile(percentile(n)) / 1000.0) :+ (deepest -> h.getMaxValue / 1000.0)
