package bulkhead.lab.report

import bulkhead.lab.diagnose.{Diagnosis, Verification}
import bulkhead.lab.model.Resource
import bulkhead.lab.record.RunRecord

/**
 * How well the diagnosis did on cases whose cap is known by construction: the resource named against the expected one,
 * the predicted cap against the measurement, and, for cases re-run with the verdict's fix, the prediction against the
 * re-run's measurement.
 */
final case class AccuracyReport(records: Seq[RunRecord]):
  private val cases = records.filter(r => r.info.expectedResource.isDefined && !r.info.name.endsWith(Verification.VerifySuffix))
  private val verifications = Verification.pair(records)

  /**
   * A cap to score: one the lab predicts from a resource's size or the CPU's cores, not the clients it merely
   * observed, and not in a run whose requests mostly failed: errors are never throughput, so such a run has no cap to
   * predict (its fix is what `--verify` checks).
   */
  private def finite(r: RunRecord) =
    val v = Diagnosis(r)
    v.errors.isEmpty && (v.cap.resource match
      case Resource.LoadGenerator | Resource.Wait => false
      case _ => true)

  private def within(ratio: Double) = !ratio.isNaN && math.abs(ratio - 1) <= 0.10

  private def rightResource(r: RunRecord) = r.info.expectedResource.exists(Diagnosis(r).named.matches)

  /**
   * The predicted cap against the case's cap by construction (`expect.cap`) where it states one, else against the
   * measurement (a saturated closed loop serves its cap).
   */
  private def capRatio(r: RunRecord): Double =
    val v = Diagnosis(r)
    r.info.expectedCap.fold(v.ratio)(c => v.predicted / c)

  /** The verdict's kind of fix is the case's (`expect.fix`); a case that states none is scored by its resource. */
  private def rightFix(r: RunRecord): Option[Boolean] =
    r.info.expectedFix.map(k => Diagnosis(r).fix.exists(_.kind.key == k))

  val rows: Seq[Seq[String]] = cases.map { r =>
    val v = Diagnosis(r)
    val ver = verifications.find(_.original.info.name == r.info.name)
    val held = r.info.declaredWorkSeconds.fold("-")(w => f"$w%.3f")
    Seq(r.info.name, r.info.expectedResource.get.text, v.name, if rightResource(r) then "yes" else "NO",
      f"${v.predicted}%.1f", r.info.expectedCap.fold("-")(c => f"$c%.1f"), f"${v.measured}%.1f", f"${capRatio(r)}%.3f",
      (r.info.expectedFix, v.fix) match
        case (Some(k), f) => s"$k: ${f.fold("none")(_.kind.key)} ${if rightFix(r).contains(true) then "yes" else "NO"}"
        case (None, f) => f.fold("-")(_.kind.key),
      held,
      ver.map(x => f"${x.predicted}%.1f -> ${x.measured}%.1f (${x.ratio}%.2f)").getOrElse("-"))
  }

  val header: Seq[String] = Seq("case", "expected", "named", "right", "predicted cap", "expected cap", "measured",
    "cap ratio", "fix: expected: given", "declared work s (not read)", "verify: predicted -> measured")

  def table: String = MarkdownTable(header, rows)

  def score: String =
    val right = cases.count(rightResource)
    val capped = cases.filter(r => finite(r) || r.info.expectedCap.isDefined)
    val close = capped.count(r => within(capRatio(r)))
    val fixes = cases.flatMap(rightFix)
    val verified = verifications.count(v => within(v.ratio))
    s"diagnosis: resource $right/${cases.size}, cap within 10 % $close/${capped.size}, " +
      s"fix right ${fixes.count(identity)}/${fixes.size}, verify within 10 % $verified/${verifications.size}"

  def markdown: String =
    s"""# Diagnosis accuracy
       |
       |$score
       |
       |@@TABLE@@
       |
       |Cap ratio = predicted / expected cap where the case states its cap by construction (`expect.cap`), else
       |measured / predicted (the CPU's, whose cap is the machine's cores over what a request costs on it). A run whose
       |requests mostly failed has no cap to score: errors are never throughput. A fix is right when its kind is the case's (`expect.fix`): never more threads for a lock's
       |queue, never more loops for a blocked event loop. No case gives the lab its work time: the column of declared
       |work is the case's own figure, printed for comparison with the hold times the verdicts measured.
       |""".stripMargin.replace("@@TABLE@@", table)
