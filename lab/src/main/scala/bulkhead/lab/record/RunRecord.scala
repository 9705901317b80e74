package bulkhead.lab.record

import bulkhead.lab.load.LoadFigures
import bulkhead.lab.sample.Sample

/** A warning or error line of the service's log (numbers and addresses masked) and how often it came. */
final case class LogLine(text: String, count: Int)

/**
 * Everything one run measured, as written to `result.json`: what ran, the load driver's figures, the samples of the
 * served process, the attempts before the measured one, and the service log's warnings. The diagnosis and the report
 * read only this.
 *
 * @param measuredFrom seconds after the load started at which the measured phase begins (a ramp's ramp-up)
 * @param beforeLoad the processes from /proc just before the load started (runs recorded without it have none)
 * @param afterLoad the same just after the load ended: with `beforeLoad`, the CPU the whole load cost
 */
final case class RunRecord(info: RunInfo, load: LoadFigures, samples: Seq[Sample], measuredFrom: Double,
    measuredTo: Double, attempts: Seq[Double], log: Seq[LogLine], beforeLoad: Option[Sample] = None,
    afterLoad: Option[Sample] = None):
  def throughput: Double = load.throughput(info.expectedClass)
  /** Samples of the measured phase (all of them if none falls in it). */
  def measuredSamples: Seq[Sample] =
    // The sample taken as the load starts sees no load yet: it would dilute every mean by one sample.
    val from = if measuredFrom > 0 then measuredFrom - 0.5 else 0.5
    val in = samples.filter(s => s.second >= from && s.second <= measuredTo + 0.5)
    if in.nonEmpty then in else samples
