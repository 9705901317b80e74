package bulkhead.lab.gate

/** The checks the gate makes on each case. `key` names the check in the printed lines and the JUnit report. */
enum GateCheck(val key: String):
  /** The resource the diagnosis names as the cap ([[bulkhead.lab.diagnose.Diagnosis]]). */
  case Resource extends GateCheck("capping resource")
  /** The measured cap: the throughput, expected answers per second. */
  case Cap extends GateCheck("cap")
  /** The service's CPU per answer ([[bulkhead.lab.record.CpuPerRequest]]). */
  case Cpu extends GateCheck("cpu per request")
  /** A run after a fix against what the verdict before it predicted ([[bulkhead.lab.diagnose.Expectation]]). */
  case Prediction extends GateCheck("prediction")

enum Outcome(val word: String):
  case Pass extends Outcome("pass")
  case Fail extends Outcome("FAIL")
  /** Not compared: a figure one of the runs did not record. Never fails the gate; the line says why. */
  case Skipped extends Outcome("skipped")

/** One check of one case: its outcome and why, with the figures. */
final case class CheckResult(caseLabel: String, check: GateCheck, outcome: Outcome, why: String):
  def failed: Boolean = outcome == Outcome.Fail

/**
 * What the gate found: every check of every case in both runs, the cases found only in the baseline (`missing`) or
 * only in the new run (`added`), which are listed and not compared, and the noise floor the checks used.
 */
final case class GateResult(checks: Seq[CheckResult], missing: Seq[String], added: Seq[String], floor: Double):
  def failures: Seq[CheckResult] = checks.filter(_.failed)
  def passed: Boolean = failures.isEmpty
  def cases: Seq[String] = checks.map(_.caseLabel).distinct

  /** One line per case and check: `pool-4  cap  FAIL  fell: 38.2 req/s ...`, then the cases not compared. */
  def lines: Seq[String] =
    val caseWidth = checks.map(_.caseLabel.length).maxOption.getOrElse(0)
    val checkWidth = GateCheck.values.map(_.key.length).max
    checks.map(c => s"${c.caseLabel.padTo(caseWidth, ' ')}  ${c.check.key.padTo(checkWidth, ' ')}  " +
      s"${c.outcome.word.padTo(7, ' ')}  ${c.why}") ++
      missing.map(m => s"$m: in the baseline only, not compared") ++
      added.map(a => s"$a: in the new run only, not compared")

  /** `gate: FAIL, 2 of 6 checks failed on 2 cases (noise floor 5 %)`. */
  def summary: String =
    val verdict = if passed then "pass" else "FAIL"
    val skipped = checks.count(_.outcome == Outcome.Skipped)
    val caseCount = if cases.size == 1 then "1 case" else s"${cases.size} cases"
    f"gate: $verdict, ${failures.size} of ${checks.size} checks failed on $caseCount" +
      (if skipped > 0 then s", $skipped skipped" else "") + f" (noise floor ${floor * 100}%.0f %%)"
