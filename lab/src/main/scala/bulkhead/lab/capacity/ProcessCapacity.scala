package bulkhead.lab.capacity

import bulkhead.lab.load.{VegetaDriver, WrkDriver}
import bulkhead.lab.record.{CapacityStep, RunRecord}
import bulkhead.lab.run.ProcessRun
import bulkhead.lab.scenario.Load

import java.nio.file.Path

/**
 * A JVM the lab did not start (`--pid PID` or `--jmx HOST:PORT`, with `--url URL`): the closed loop is wrk at
 * `connections`, the steps vegeta's open loop on the same URL, each measured by `run` as `lab diagnose` measures.
 */
final class ProcessCapacity(run: ProcessRun, val name: String, url: String, connections: Int, threads: Int,
    plan: CapacityPlan) extends CapacityTarget:
  def closedLoop(dir: Path): Either[String, RunRecord] =
    val wrk = WrkDriver(threads.min(connections), connections, plan.stepDuration.max(Load.MinClosedLoop), plan.timeout)
    run.loaded(wrk, url, dir, s"$name-closed-loop", Some(CapacityStep(name, 0, None)))

  def step(index: Int, rate: Double, dir: Path): Either[String, RunRecord] =
    run.loaded(VegetaDriver(rate, plan.stepDuration, plan.timeout), url, dir, f"$name-step-$index%02d",
      Some(CapacityStep(name, index, Some(rate))))
