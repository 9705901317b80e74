package bulkhead.lab.capacity

import bulkhead.lab.scenario.RateSteps

import scala.concurrent.duration.*

/**
 * How `lab capacity` steps the arrival rate: the steps, the top rate (None: [[CapacityPlan.TopOverCap]] times the
 * closed loop's cap), whether the closed loop runs first to read the cap (not with `--max-rate`), each step's length
 * and timeout, and the pause between steps.
 */
final case class CapacityPlan(steps: RateSteps, top: Option[Double], closedLoop: Boolean, stepDuration: FiniteDuration,
    timeout: FiniteDuration, pause: FiniteDuration = CapacityPlan.Pause):
  /** The rates of the steps, given the closed loop's cap when the plan has no top of its own. */
  def rates(cap: Option[Double]): Either[String, Seq[Double]] =
    steps match
      case RateSteps.Rates(rates) => Right(rates)
      case counted => top.orElse(cap.filter(_ > 0).map(_ * CapacityPlan.TopOverCap))
        .toRight("no top rate: the closed loop read no cap; give --max-rate").map(counted.upTo)

object CapacityPlan:
  /** Steps when neither the command line nor the scenario says. */
  val DefaultSteps = 10
  /** The top step over the closed loop's cap: far enough past it that the knee falls inside the curve. */
  val TopOverCap = 1.5
  /** Between steps: the last step's stragglers (answers queued in the service) end before the next is measured. */
  val Pause: FiniteDuration = 1.second
