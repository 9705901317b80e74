package bulkhead.lab.record

import bulkhead.lab.sample.{Sample, SamplingSource}

/**
 * What a run's sampling did to the sampled JVM: where its samples came from and why ([[SamplingSource]]), the interval
 * asked and the longest one used after stretching it for the pause budget, how many samples, the pauses they caused
 * in all and as a share of the run's wall time, and how the pauses were measured.
 */
final case class SamplingRecord(source: Option[SamplingSource], everyMs: Long, longestIntervalMs: Long, samples: Int,
    pausesMs: Double, pausedShare: Double, budgetShare: Double, pauseMeasuredBy: Option[String]):
  /**
   * `Thread.print -l + JFR events ... every 1,000 ms (stretched up to 2,400 ms), 30 samples stopped the JVM 61.2 ms in
   * all, 0.20 % of the run`.
   */
  def describe: String =
    val stretched = if longestIntervalMs > everyMs then f" (stretched up to $longestIntervalMs%,d ms)" else ""
    val from = source.fold("")(s => s"${s.platform}${s.virtual.fold("")(v => s" + $v")}, ")
    from + f"every $everyMs%,d ms$stretched, $samples samples stopped the JVM $pausesMs%.1f ms in all, " +
      f"${pausedShare * 100}%.2f %% of the run (budget ${budgetShare * 100}%.0f %%)"

object SamplingRecord:
  /** The record of `samples` taken over `wallSeconds`. */
  def of(source: Option[SamplingSource], every: Long, longest: Long, samples: Seq[Sample], wallSeconds: Double,
      budget: Double): SamplingRecord =
    val pauses = samples.flatMap(_.pause)
    val total = pauses.map(_.ms).sum
    SamplingRecord(source, every, longest, samples.size, total, if wallSeconds > 0 then total / 1000 / wallSeconds else 0,
      budget, pauses.headOption.map(_.how))
