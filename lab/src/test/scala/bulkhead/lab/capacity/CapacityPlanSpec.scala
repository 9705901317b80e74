package bulkhead.lab.capacity

import bulkhead.lab.scenario.RateSteps
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import scala.concurrent.duration.*

/** How `lab capacity` picks its steps' rates: from the scenario's rates, its own top, or the closed loop's cap. */
class CapacityPlanSpec extends AnyFlatSpec with Matchers:
  private def plan(steps: RateSteps, top: Option[Double]) = CapacityPlan(steps, top, top.isEmpty, 5.seconds, 10.seconds)

  "A capacity plan" should "step up to 1.5x the closed loop's cap when it has no top of its own" in {
    val rates = plan(RateSteps.Count(3), None).rates(Some(20.0)).toOption.get
    rates.last shouldBe 30.0 +- 1e-9
    rates shouldBe RateSteps.Count(3).upTo(30.0)
  }

  it should "step up to its own top, whatever the cap" in {
    plan(RateSteps.Count(4), Some(100.0)).rates(Some(20.0)) shouldBe Right(RateSteps.Count(4).upTo(100.0))
  }

  it should "run the scenario's own rates as they are" in {
    plan(RateSteps.Rates(Seq(5.0, 10.0)), None).rates(None) shouldBe Right(Seq(5.0, 10.0))
  }

  it should "refuse to step without a top when the closed loop read no cap, saying which flag to give" in {
    plan(RateSteps.Count(3), None).rates(None).left.toOption.get should include("--max-rate")
    plan(RateSteps.Count(3), None).rates(Some(0.0)).isLeft shouldBe true
  }
