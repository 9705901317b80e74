package bulkhead.lab.report

import bulkhead.lab.diagnose.{Diagnosis, Resource}
import bulkhead.lab.record.RunRecord
import bulkhead.lab.run.{SuiteRun, Verification}

/**
 * How well the diagnosis did on cases whose cap is known by construction: the resource named against the expected one,
 * the predicted cap against the measurement, and, for cases re-run with the verdict's fix, the prediction against the
 * re-run's measurement.
 */
final case class AccuracyReport(records: Seq[RunRecord]):
  private val cases = records.filter(r => r.info.expectedResource.isDefined && !r.info.name.endsWith(SuiteRun.VerifySuffix))
  private val verifications = Verification.pair(records)

  /**
   * A finite cap: one the lab predicts from a resource's size, not the clients or the CPU it merely observed, and not in
   * a run whose requests mostly failed: errors are never throughput, so such a run has no cap to predict (its fix is
   * what `--verify` checks).
   */
  private def finite(r: RunRecord) =
    val v = Diagnosis(r)
    v.errors.isEmpty && (v.cap.resource match
      case Resource.LoadGenerator | Resource.Cpu => false
      case _ => true)

  private def within(ratio: Double) = !ratio.isNaN && math.abs(ratio - 1) <= 0.10

  val rows: Seq[Seq[String]] = cases.map { r =>
    val v = Diagnosis(r)
    val ver = verifications.find(_.original.info.name == r.info.name)
    val held = r.info.declaredWorkSeconds.fold("-")(w => f"$w%.3f")
    Seq(r.info.name, r.info.expectedResource.get.text, v.name, if r.info.expectedResource.contains(v.named) then "yes" else "NO",
      f"${v.predicted}%.1f", f"${v.measured}%.1f", f"${v.ratio}%.3f", held,
      ver.map(x => f"${x.predicted}%.1f -> ${x.measured}%.1f (${x.ratio}%.2f)").getOrElse("-"))
  }

  val header: Seq[String] = Seq("case", "expected", "named", "right", "predicted cap", "measured", "ratio",
    "declared work s (not read)", "verify: predicted -> measured")

  def table: String = MarkdownTable(header, rows)

  def score: String =
    val right = cases.count(r => r.info.expectedResource.contains(Diagnosis(r).named))
    val capped = cases.filter(finite)
    val close = capped.count(r => within(Diagnosis(r).ratio))
    val verified = verifications.count(v => within(v.ratio))
    s"diagnosis: resource $right/${cases.size}, cap within 10 % $close/${capped.size}, " +
      s"verify within 10 % $verified/${verifications.size}"

  def markdown: String =
    s"""# Diagnosis accuracy
       |
       |$score
       |
       |@@TABLE@@
       |
       |Ratio = measured / predicted cap. No case gives the lab its work time: the column of declared work is the case's
       |own figure, printed for comparison with the hold times the verdicts measured.
       |""".stripMargin.replace("@@TABLE@@", table)
