package bulkhead.lab.capacity

import bulkhead.lab.load.{LoadDriver, Requests, VegetaDriver}
import bulkhead.lab.record.{CapacityStep, RunRecord}
import bulkhead.lab.run.ProcessRun
import bulkhead.lab.scenario.Load

import java.nio.file.Path

/**
 * A JVM the lab did not start (`--pid PID` or `--jmx HOST:PORT`, with the user's requests: `--url` and its flags, or
 * `--targets`): the closed loop at `connections` (wrk, else the lab's own users, which also go where wrk cannot),
 * the steps vegeta's open loop on the same requests, each measured by `run` as `lab diagnose` measures.
 */
final class ProcessCapacity(run: ProcessRun, val name: String, requests: Requests, connections: Int, threads: Int,
    plan: CapacityPlan, say: String => Unit) extends CapacityTarget:
  def closedLoop(dir: Path): Either[String, RunRecord] =
    val closed = LoadDriver.closedLoop(requests, threads, connections, plan.stepDuration.max(Load.MinClosedLoop),
      plan.timeout, say)
    run.loadedFleet(closed, requests, dir, s"$name-closed-loop", Some(CapacityStep(name, 0, None)))

  def step(index: Int, rate: Double, dir: Path): Either[String, RunRecord] =
    run.loadedFleet(VegetaDriver(rate, plan.stepDuration, plan.timeout), requests, dir, f"$name-step-$index%02d",
      Some(CapacityStep(name, index, Some(rate))))
