package bulkhead.lab.diagnose

import bulkhead.lab.record.RunRecord

/**
 * A run, its verdict, and the re-run with the verdict's fix: what the lab predicted for it and what it measured (as
 * the re-run's own verdict measures it, between its samples where it can: [[bulkhead.lab.record.SampledRates]]).
 */
final case class Verification(original: RunRecord, verdict: Verdict, rerun: RunRecord):
  private lazy val now = Diagnosis(rerun)
  def predicted: Double = verdict.next.map(_.perSecond).getOrElse(Double.NaN)
  def measured: Double = now.measured
  def ratio: Double = measured / predicted
  def line: String =
    f"   verify ${verdict.fix.map(_.flags.mkString(" ")).getOrElse("")}: predicted $predicted%.1f req/s " +
      f"(${verdict.next.map(_.name).getOrElse("-")}), measured $measured%.1f = $ratio%.2f of the prediction; now " +
      now.cap.name

object Verification:
  /** What a re-run with the verdict's fix adds to its original's name. */
  val VerifySuffix = "-verify"

  /** Pairs every `name-verify` run with its original (by name), as they sit in a run's directory. */
  def pair(records: Seq[RunRecord]): Seq[Verification] =
    records.filter(_.info.name.endsWith(VerifySuffix)).flatMap { rerun =>
      records.find(_.info.name == rerun.info.name.stripSuffix(VerifySuffix)).map(o =>
        Verification(o, Diagnosis(o), rerun))
    }
