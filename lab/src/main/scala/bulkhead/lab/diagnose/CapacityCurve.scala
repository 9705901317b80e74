package bulkhead.lab.diagnose

import bulkhead.lab.record.RunRecord

/**
 * A capacity curve read back from its run records: the closed loop that read the Little's-law cap (when it ran), the
 * open-loop steps in order, their figures and the knee. Everything here is computed from the records alone, so `lab
 * report` draws the same curve as `lab capacity` printed.
 */
final case class CapacityCurve(name: String, closedLoop: Option[RunRecord], steps: Seq[RunRecord]):
  def figures: Seq[StepFigures] = steps.flatMap(StepFigures.of)
  def knee: Option[Knee] = Knee.find(figures)

  /**
   * The verdict whose cap the knee is set beside: the closed loop's (`Diagnosis(record).predicted`), or, when the
   * curve ran without one (`--max-rate`), the highest step's.
   */
  def verdict: Option[Verdict] = closedLoop.orElse(steps.lastOption).map(Diagnosis(_))
  /** Where the cap comes from, in words. */
  def capSource: String = if closedLoop.isDefined then "the closed loop's diagnosis" else "the highest step's diagnosis"

  /** The knee's throughput over the cap: 1.0 is a knee exactly at the cap. */
  def kneeOverCap: Option[Double] =
    for k <- knee; v <- verdict if v.predicted > 0 yield k.throughput / v.predicted

  /** `knee at step 5 (40.0 req/s offered): 31.9 req/s answered ...; cap 31.8 req/s (pool blocking-pool): 1.00`. */
  def line: String =
    val cap = verdict.fold("no cap read")(v => f"Little's-law cap ${v.predicted}%.1f req/s (${v.name}, $capSource)")
    knee match
      case None => f"=> $name: no knee up to ${figures.map(_.offered).maxOption.getOrElse(0.0)}%.1f req/s offered " +
        s"(every step answered as offered, p99 at its floor); $cap"
      case Some(k) =>
        f"=> $name: knee at step ${k.at.step} (${k.at.offered}%.1f req/s offered): ${k.throughput}%.1f req/s " +
          f"answered; ${k.why}; $cap" + kneeOverCap.fold("")(r => f"; knee / cap = $r%.2f")

object CapacityCurve:
  /** The curves among `records` (runs of `lab capacity`), in the order of their first record; others left out. */
  def of(records: Seq[RunRecord]): Seq[CapacityCurve] =
    val onCurves = records.filter(_.info.capacityStep.isDefined)
    onCurves.map(_.info.capacityStep.get.curve).distinct.map { name =>
      val mine = onCurves.filter(_.info.capacityStep.exists(_.curve == name)).sortBy(_.info.capacityStep.get.index)
      CapacityCurve(name, mine.find(_.info.capacityStep.exists(_.closedLoop)),
        mine.filterNot(_.info.capacityStep.exists(_.closedLoop)))
    }
