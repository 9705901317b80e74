package bulkhead.lab.diagnose

import bulkhead.lab.record.RunRecord

/**
 * One step of a capacity curve as the knee reads it: the arrival rate offered, the expected answers per second
 * (throughput), every answer per second by status class, requests without an answer per second, and the latency
 * percentiles measured from each request's intended send time.
 */
final case class StepFigures(step: Int, offered: Double, answered: Double, byClass: Map[String, Double],
    unanswered: Double, p50Ms: Double, p99Ms: Double, p999Ms: Double):
  /** Share of the offered rate answered as expected (1: the service follows the offered rate). */
  def servedShare: Double = if offered > 0 then answered / offered else 0.0

object StepFigures:
  /** A step's figures from its run record; None for a run that is no open-loop step of a curve. */
  def of(r: RunRecord): Option[StepFigures] =
    for
      step <- r.info.capacityStep
      offered <- step.offered
    yield
      val seconds = r.load.durationSeconds.max(1e-9)
      val l = r.load.latency
      StepFigures(step.index, offered, r.throughput, r.load.answers.byClass.map((c, n) => c -> n / seconds),
        r.load.answers.unanswered / seconds, l.p50Ms, l.p99Ms, l.p999Ms)
