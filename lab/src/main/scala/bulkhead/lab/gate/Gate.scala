package bulkhead.lab.gate

import bulkhead.lab.diagnose.{Diagnosis, Expectation, VerdictJson}
import bulkhead.lab.model.CapName
import bulkhead.lab.record.{CpuPerRequest, RunRecord}

/**
 * A CI gate on recorded runs: each case of a new run against the same case of a baseline run, on three checks. The
 * capping resource must be one the baseline named; the measured cap (throughput) must not fall, nor the CPU per
 * request rise, beyond the noise the baseline's own rounds show (their relative spread, never below a floor). A case
 * is a scenario on one server (`info.name` and `info.target`): a benchmark's rounds are several records of one case.
 * A run made after a fix with `lab diagnose --expect` is also checked against what the verdict before it predicted.
 */
object Gate:
  /** The least noise a check allows: what one round cannot measure, and the diagnosis's own margin. */
  val NoiseFloor: Double = Diagnosis.Noise

  /** The figures of one case over its rounds, and what each round's diagnosis named. */
  final case class Rounds(records: Seq[RunRecord]):
    require(records.nonEmpty, "a case has at least one round")
    lazy val named: Seq[CapName] = records.map(r => Diagnosis(r).named)
    def throughputs: Seq[Double] = records.map(_.throughput)
    def cpuMicros: Seq[Double] = records.flatMap(CpuPerRequest.service)
    /** The resource most rounds named (the first named, on a tie). */
    def mostNamed: CapName = named.groupBy(identity).toSeq.maxBy((n, all) => (all.size, -named.indexOf(n)))._1

  /**
   * A change beyond the noise: the median of `candidate` against the median of `baseline`, `noise` the relative
   * spread of the baseline's values (max - min over median), at least `floor`.
   */
  final case class Figure(baseline: Seq[Double], candidate: Seq[Double], floor: Double):
    val before: Double = median(baseline)
    val after: Double = median(candidate)
    val spread: Option[Double] = Option.when(baseline.size > 1 && before > 0)((baseline.max - baseline.min) / before)
    val noise: Double = spread.fold(floor)(_.max(floor))
    /** The change, relative to the baseline (+0.30 for 30 % more). */
    def change: Double = if before > 0 then after / before - 1 else 0.0
    def noiseText: String = spread match
      case Some(s) if s >= floor => f"the noise of ${noise * 100}%.1f %% (the spread of ${baseline.size} baseline rounds)"
      case Some(s) => f"the noise of ${noise * 100}%.1f %% (the floor; ${baseline.size} baseline rounds spread ${s * 100}%.1f %%)"
      case None => f"the noise of ${noise * 100}%.1f %% (the floor; ${roundsText(baseline.size)} baseline)"

  def median(xs: Seq[Double]): Double =
    val s = xs.sorted
    if s.isEmpty then Double.NaN
    else if s.size % 2 == 1 then s(s.size / 2) else (s(s.size / 2 - 1) + s(s.size / 2)) / 2

  private def roundsText(n: Int) = if n == 1 then "a single-round" else s"$n-round"

  /** Each case's rounds, by scenario name and server. */
  def cases(records: Seq[RunRecord]): Map[(String, String), Seq[RunRecord]] =
    records.groupBy(r => (r.info.name, r.info.target))

  /** Compares every case found in both record sets; a case found in one only is listed, not compared. */
  def compare(baseline: Seq[RunRecord], candidate: Seq[RunRecord], floor: Double = NoiseFloor): GateResult =
    val before = cases(baseline)
    val after = cases(candidate)
    val keys = (before.keySet ++ after.keySet).toSeq.sorted
    val targetsOf = keys.groupMap(_._1)(_._2)
    // A name on several servers (a benchmark's case) is labelled with each, as `bench` prints it.
    def label(key: (String, String)) = if targetsOf(key._1).size > 1 then s"${key._1} on ${key._2}" else key._1
    val checks = keys.filter(k => before.contains(k) && after.contains(k)).flatMap { k =>
      GateCase(label(k), Rounds(before(k)), Rounds(after(k)), floor).checks
    }
    GateResult(checks, keys.filterNot(after.contains).map(label), keys.filterNot(before.contains).map(label), floor)

  /**
   * The predictions a new run holds (a `verdict.json` written with `--expect`): each met when the measurement is at
   * most [[Expectation.Band]] below the prediction; above it, the fix did better than predicted.
   */
  def predictions(verdicts: Seq[VerdictJson.VerdictFile]): Seq[CheckResult] =
    verdicts.flatMap(v => v.expectation.map { e =>
      val band = f"${Expectation.Band * 100}%.0f %%"
      if e.met then CheckResult(v.run, GateCheck.Prediction, Outcome.Pass, s"${e.line}, within $band below it")
      else CheckResult(v.run, GateCheck.Prediction, Outcome.Fail, s"missed: ${e.line}, more than $band below it " +
        s"(the fix of ${e.from})")
    })
