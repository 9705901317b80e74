package bulkhead.lab.capacity

import bulkhead.lab.load.{LoadDriver, VegetaDriver}
import bulkhead.lab.record.{CapacityStep, RunRecord}
import bulkhead.lab.run.ScenarioRunner
import bulkhead.lab.scenario.{Load, Scenario}

import java.nio.file.Path

/**
 * A scenario's service, started once by the lab and warmed up once, measured by the closed loop (the scenario's own
 * load; an open scenario's `load.connections` through wrk) and then by each step of vegeta's open loop.
 */
final class ScenarioCapacity(s: Scenario, session: ScenarioRunner#Session, plan: CapacityPlan)
    extends CapacityTarget:
  def name: String = s.name

  private val closedLoad: Load = s.load match
    case o: Load.Open => Load.closedLoopOf(o)
    case other => other

  def closedLoop(dir: Path): Either[String, RunRecord] =
    val closed = s.copy(name = s"${s.name}-closed-loop", title = s"${s.title}: the closed loop", load = closedLoad)
    attempt(session.measureWith(closed, LoadDriver.of(closedLoad), dir, Some(CapacityStep(s.name, 0, None))))

  def step(index: Int, rate: Double, dir: Path): Either[String, RunRecord] =
    val open = Load.Open(Some(rate), None, plan.stepDuration, plan.timeout, closedLoad.concurrency.min(2),
      closedLoad.concurrency)
    val one = s.copy(name = f"${s.name}-step-$index%02d", title = f"${s.title}: open loop at $rate%.1f req/s",
      load = open)
    attempt(session.measureWith(one, VegetaDriver(rate, plan.stepDuration, plan.timeout), dir,
      Some(CapacityStep(s.name, index, Some(rate)))))

  private def attempt(run: => RunRecord): Either[String, RunRecord] =
    try Right(run) catch case e: Exception => Left(s"${s.name}: ${e.getMessage}")
