package bulkhead.lab.run

import bulkhead.lab.diagnose.{Diagnosis, Verification}
import bulkhead.lab.model.Target
import bulkhead.lab.process.Launch
import bulkhead.lab.record.RunRecord
import bulkhead.lab.scenario.Scenario

import java.nio.file.Path

/** What a suite produced: every run (re-runs of `--verify` included), and the scenarios that did not run. */
final case class SuiteOutcome(records: Seq[RunRecord], failures: Seq[String]):
  def verifications: Seq[Verification] = Verification.pair(records)

/**
 * Runs scenarios one after another, prints each verdict and, with `verify`, re-runs each scenario whose verdict has a
 * setting to change with that setting, printing the prediction beside the measurement. Progress shows the elapsed
 * and the estimated remaining time of the whole suite.
 */
final class SuiteRun(launch: Launch, workDir: Path, say: String => Unit):
  def run(scenarios: Seq[Scenario], verify: Boolean): SuiteOutcome =
    val runner = ScenarioRunner(launch, workDir, say)
    val started = System.nanoTime()
    var remaining = scenarios.map(SuiteRun.estimateSeconds).sum * (if verify then 1.6 else 1.0)
    val outcomes = scenarios.zipWithIndex.flatMap { (s, i) =>
      val elapsed = (System.nanoTime() - started) / 1e9
      say(f"[${i + 1}/${scenarios.size}, ${elapsed / 60}%.1f min elapsed, ~${remaining / 60}%.1f min left] " +
        s"${s.name} on ${s.targets.map(_.name).mkString(", ")}: ${s.load.describe(s.path)}")
      val rs = runner.runAll(s)
      rs.foreach {
        case Right(r) => say("  " + Diagnosis(r).line(r.info.name))
        case Left(err) => say(s"  => did not run: $err")
      }
      val reruns = if !verify then Nil else rs.collect { case Right(r) => r }.flatMap(r => rerun(runner, s, r))
      remaining = (remaining - SuiteRun.estimateSeconds(s) * (if verify then 1.6 else 1.0)).max(0)
      rs ++ reruns
    }
    SuiteOutcome(outcomes.collect { case Right(r) => r }, outcomes.collect { case Left(e) => e })

  private def rerun(runner: ScenarioRunner, s: Scenario, r: RunRecord): Seq[Either[String, RunRecord]] =
    val verdict = Diagnosis(r)
    verdict.fix.filter(f => f.flags.nonEmpty && verdict.next.isDefined && s.targets == Seq(Target.Bulkhead)) match
      case None => Nil
      case Some(fix) =>
        say(s"  verifying: ${s.name} again with ${fix.flags.mkString(" ")}${fix.path.fold("")(p => s" on $p")}")
        val again = runner.run(s.copy(name = s.name + Verification.VerifySuffix, serviceFlags = fix.applyTo(s.serviceFlags),
          title = s"${s.title}, with the lab's fix", path = fix.path.getOrElse(s.path)))
        again.fold(e => say(s"  => verify did not run: $e"), rr => say(Verification(r, verdict, rr).line))
        Seq(again)

object SuiteRun:
  /** Seconds a scenario takes: start-up, warm-up, every attempt, stop. */
  def estimateSeconds(s: Scenario): Double =
    s.targets.size * (8 + s.warmup.toSeconds + s.attempts * s.load.seconds)
