package bulkhead.lab.faults

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import scala.concurrent.duration.*

/** Which runs the phases end early: the short form's, once back for the tail, and never those that degrade. */
class PhasesSpec extends AnyFlatSpec with Matchers:
  private def fault(name: String) = FaultCase.all.find(_.name == name).get
  /** 200 OK a second, none from the fault at 2 s until 6 s; cleared at 5 s; back (160 in a window) from 6.8 s. */
  private val ok = (0 until 120).map(t => if t >= 20 && t < 60 then 0 else 20)
  private def endsAt(phases: Phases, f: FaultCase) =
    (50 until 110).find(now => phases.recovered(f, ok.take(now) :+ 0, 2.0, 5.0, now))

  "The short form's phases" should "end a run once OK throughput has been back for the steady tail" in {
    FaultSuiteSettings.Short.phases.steadyTail shouldBe Some(2.seconds)
    endsAt(FaultSuiteSettings.Short.phases, fault("reset")) shouldBe Some(88)
    endsAt(FaultSuiteSettings.Short.phases, fault("stub-hung")) shouldBe Some(88)
  }

  it should "run a fault that degrades answers to the phase's end: the request log cannot see a degraded answer" in {
    fault("redis-killed").expect.degrades shouldBe true
    FaultSuiteSettings.Short.phases.tailOf(fault("redis-killed")) shouldBe None
    endsAt(FaultSuiteSettings.Short.phases, fault("redis-killed")) shouldBe None
    endsAt(FaultSuiteSettings.Short.phases, fault("redis-stopped")) shouldBe None
  }

  "The long form's phases" should "watch every recovery phase to its end" in {
    FaultSuiteSettings.Full.phases.steadyTail shouldBe None
    endsAt(FaultSuiteSettings.Full.phases, fault("reset")) shouldBe None
  }

  "The phases' total" should "stay the longest a run lasts, its recovery phase whole" in {
    FaultSuiteSettings.Short.phases.total(fault("reset")) shouldBe 10500.millis
  }
