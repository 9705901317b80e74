package bulkhead.lab.diagnose

import bulkhead.lab.record.RunRecord

/** A run, its verdict, and the re-run with the verdict's fix: what the lab predicted for it and what it measured. */
final case class Verification(original: RunRecord, verdict: Verdict, rerun: RunRecord):
  def predicted: Double = verdict.next.map(_.perSecond).getOrElse(Double.NaN)
  def measured: Double = rerun.throughput
  def ratio: Double = measured / predicted
  def line: String =
    f"   verify ${verdict.fix.map(_.flags.mkString(" ")).getOrElse("")}: predicted $predicted%.1f req/s " +
      f"(${verdict.next.map(_.name).getOrElse("-")}), measured $measured%.1f = $ratio%.2f of the prediction; now " +
      Diagnosis(rerun).cap.name

object Verification:
  /** What a re-run with the verdict's fix adds to its original's name. */
  val VerifySuffix = "-verify"

  /** Pairs every `name-verify` run with its original (by name), as they sit in a run's directory. */
  def pair(records: Seq[RunRecord]): Seq[Verification] =
    records.filter(_.info.name.endsWith(VerifySuffix)).flatMap { rerun =>
      records.find(_.info.name == rerun.info.name.stripSuffix(VerifySuffix)).map(o =>
        Verification(o, Diagnosis(o), rerun))
    }
