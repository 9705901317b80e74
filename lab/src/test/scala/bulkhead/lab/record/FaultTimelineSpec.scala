package bulkhead.lab.record

import bulkhead.lab.load.ClosedLoopUsers
import bulkhead.lab.sample.{Retained, Sample}
import bulkhead.lab.testkit.{Fixtures, Scratch}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.Files

/**
 * A fault run's timeline: aggregated from its request log, lined up with the run's samples second by second, and
 * written and read back in result.json with the record it belongs to.
 */
class FaultTimelineSpec extends AnyFlatSpec with Matchers:
  private val retained = Retained(Some(40), Some(20.0))
  private val expect = FaultExpectation(Set(502, 503), BreakerExpectation.Opens)
  /** Two seconds: 100 OK in the first, a 503 with Retry-After, one without, a timeout and a held client's 503. */
  private val log =
    (1 to 100).map(i => RequestLog.Entry("steady", 0.0, 0.5, i.toDouble, RequestOutcome.Status(200), None)) ++ Seq(
      RequestLog.Entry("steady", 1.0, 1.2, 2.0, RequestOutcome.Status(503), Some("1")),
      RequestLog.Entry("steady", 1.0, 1.3, 2.0, RequestOutcome.Status(503), None),
      RequestLog.Entry("steady", 1.0, 1.5, 500.0, RequestOutcome.Timeout, None),
      RequestLog.Entry("held", 1.0, 1.6, 3.0, RequestOutcome.Status(503), Some("1")))
  private val timeline = FaultTimeline.of("reset", "non-blocking", expect, 0.8, 1.1, 2.0, log, retained, retained,
    usersEnded = true)

  "FaultTimeline" should "count every request by group and outcome, and by the second it ended in" in {
    timeline.totals shouldBe Seq(OutcomeCount("held", RequestOutcome.Status(503), 1),
      OutcomeCount("steady", RequestOutcome.Status(200), 100), OutcomeCount("steady", RequestOutcome.Status(503), 2),
      OutcomeCount("steady", RequestOutcome.Timeout, 1))
    timeline.seconds shouldBe Seq(OutcomeSecond(0, Map(RequestOutcome.Status(200) -> 100)), OutcomeSecond(1,
      Map(RequestOutcome.Status(503) -> 3, RequestOutcome.Timeout -> 1)))
    timeline.statuses shouldBe Map(200 -> 100, 503 -> 3)
    timeline.missingRetryAfter shouldBe 1
  }

  it should "count OK answers per tenth of a second, for the recovery time" in {
    timeline.okPerTenth.size shouldBe 21
    timeline.okPerTenth(5) shouldBe 100
    timeline.okPerTenth.sum shouldBe 100
  }

  it should "line each second up with the sample taken in it, the last of two, none where none was" in {
    def at(second: Double) = Sample(second, Nil, Some(second.toInt), None, None, None, None, None)
    val seconds = FaultTimeline.seconds(timeline, Seq(at(0.01), at(0.9), at(2.02)))
    seconds.map(s => s.second -> s.sample.map(_.second)) shouldBe Seq(0 -> Some(0.9), 1 -> None)
    seconds.head.ok shouldBe 100
  }

  it should "leave to the run's figures what every load driver gives, from the same log" in {
    val figures = ClosedLoopUsers.figures(log, 16, 0.0, 2.0, "16 users")
    figures.answers.byClass shouldBe Map("2xx" -> 100L, "5xx" -> 3L)
    figures.answers.timeouts shouldBe 1
    figures.latency.count shouldBe 103
    figures.seconds.map(_.unanswered) shouldBe Seq(Some(0L), Some(1L))
  }

  "A recorded fault run" should "write its timeline in result.json and read it back unchanged" in {
    val reset = Fixtures.faultRun("reset")
    val text = Files.readString(RecordJson.write(reset, Scratch.dir("fault")))
    text should (include("\"outcome\": \"error:timeout\"") or include("\"503\":"))
    text should include("\"breaker\": \"Opens\"")
    RecordJson.read(RecordJson.write(reset, Scratch.dir("fault"))) shouldBe Right(reset)
    RecordJson.read(RecordJson.write(reset.copy(fault = Some(timeline)), Scratch.dir("fault")))
      .map(_.fault) shouldBe Right(Some(timeline))
  }
