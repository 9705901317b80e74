package bulkhead.lab.capacity

import bulkhead.lab.diagnose.{CapacityCurve, Diagnosis, StepFigures}
import bulkhead.lab.record.RunRecord

import java.nio.file.Path

/** What `lab capacity` loads and samples: a scenario's service that the lab started, or a JVM already running. */
trait CapacityTarget:
  /** The curve's name: the scenario's, or the process's. */
  def name: String
  /** The closed loop whose diagnosis reads the Little's-law cap (step 0), written to `dir`. */
  def closedLoop(dir: Path): Either[String, RunRecord]
  /** One open-loop step at `rate` req/s, written to `dir`. */
  def step(index: Int, rate: Double, dir: Path): Either[String, RunRecord]

/**
 * Drives a capacity curve: the closed loop first (its verdict names the cap and sets the top rate), then the
 * open-loop steps one after another, each sampled and recorded like any run (`closed-loop/` and `step-NN/` under
 * `dir`, each with its `result.json`). Stops at the first step that fails; the knee is read from the records.
 */
final class CapacityRun(plan: CapacityPlan, say: String => Unit):
  def run(target: CapacityTarget, dir: Path): Either[String, CapacityCurve] =
    val closed =
      if !plan.closedLoop then Right(None)
      else
        say(s"  closed loop: the cap, by the diagnosis")
        target.closedLoop(dir.resolve("closed-loop")).map { r =>
          say("  " + Diagnosis(r).line(r.info.name))
          Some(r)
        }
    for
      c <- closed
      rates <- plan.rates(c.map(Diagnosis(_).predicted))
      steps <- steps(target, rates, dir)
    yield CapacityCurve(target.name, c, steps)

  private def steps(target: CapacityTarget, rates: Seq[Double], dir: Path): Either[String, Seq[RunRecord]] =
    rates.zipWithIndex.foldLeft[Either[String, Vector[RunRecord]]](Right(Vector.empty)) { case (done, (rate, i)) =>
      done.flatMap { rs =>
        if rs.nonEmpty then Thread.sleep(plan.pause.toMillis)
        val index = i + 1
        say(f"  step $index of ${rates.size}: $rate%.1f req/s for ${plan.stepDuration.toSeconds} s (open loop)")
        target.step(index, rate, dir.resolve(f"step-$index%02d")).map { r =>
          StepFigures.of(r).foreach(f => say(f"    answered ${f.answered}%.1f req/s (${f.servedShare * 100}%.0f %%), " +
            f"p50 ${f.p50Ms}%,.0f ms, p99 ${f.p99Ms}%,.0f ms, p99.9 ${f.p999Ms}%,.0f ms"))
          rs :+ r
        }
      }
    }
