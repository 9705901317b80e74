package bulkhead.lab.diagnose

import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/** The knee of a capacity curve, read from step figures alone: made up, and recorded from real curves. */
class KneeSpec extends AnyFlatSpec with Matchers:
  private def step(i: Int, offered: Double, answered: Double, p99: Double) =
    StepFigures(i, offered, answered, Map("2xx" -> answered), 0, p99 * 0.8, p99, p99 * 1.1)

  "Knee" should "be the first step answered under 95 % of its offered rate" in {
    val steps = Seq(step(1, 10, 10, 260), step(2, 20, 19.9, 270), step(3, 30, 27.9, 400), step(4, 40, 28, 2000))
    val knee = Knee.find(steps).get
    knee.at.step shouldBe 3
    knee.throughput shouldBe 27.9
    knee.why should include("answered 27.9 of 30.0 req/s offered (93 %, under 95 %)")
  }

  it should "be the first step whose p99 left its floor (over 3x the first step's), even when all were answered" in {
    val knee = Knee.find(Seq(step(1, 10, 10, 200), step(2, 20, 20, 590), step(3, 30, 30, 610))).get
    knee.at.step shouldBe 3
    knee.why should include("p99 610 ms, 3.1x the first step's 200 ms")
  }

  it should "give both reasons when both hold, whatever order the steps come in" in {
    val knee = Knee.find(Seq(step(2, 40, 30, 5000), step(1, 20, 20, 250))).get
    knee.at.step shouldBe 2
    knee.why should (include("under 95 %") and include("over 3x"))
  }

  it should "be none when every step was followed at the floor's latency" in {
    Knee.find(Seq(step(1, 10, 10, 250), step(2, 20, 19.5, 700))) shouldBe None
    Knee.find(Nil) shouldBe None
  }

  "A recorded capacity curve" should "bend where the service stopped following the rate: at the cap on a pool" in {
    val curve = CapacityCurve.of(Fixtures.records("capacity-blocking-pool")).head
    curve.steps.size shouldBe 6
    curve.figures.take(4).foreach(_.servedShare should be >= 0.95)
    val knee = curve.knee.get
    knee.at.step shouldBe 5
    knee.why should (include("under 95 %") and include("over 3x"))
    curve.verdict.get.name shouldBe "pool blocking-pool"
    curve.kneeOverCap.get shouldBe 1.0 +- 0.1
  }

  it should "bend below the closed loop's cap where the service held its calls longer under the open loop" in {
    val curve = CapacityCurve.of(Fixtures.records("capacity-soap-work-queue")).head
    val knee = curve.knee.get
    knee.at.step shouldBe 3
    knee.why should include("under 95 %")
    curve.kneeOverCap.get should be < 0.9
    // The step's own diagnosis: the work queue full at that rate, its cap the knee's.
    val step = curve.steps.find(_.info.capacityStep.exists(_.index == 3)).get
    val own = Diagnosis(step)
    own.name shouldBe "pool work-queue"
    knee.throughput / own.predicted shouldBe 1.0 +- 0.1
  }
