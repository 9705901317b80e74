package bulkhead.lab.checks

import bulkhead.lab.record.{Overload, OverloadStep}
import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/**
 * The checks on the overload ramp as `lab faults` recorded it on this machine
 * (fixtures/faults/short-reset-redis-killed-trickle/overload-ramp: an in-flight limit of 100, the third party at
 * 500 ms, 0.5x to 3x the limit in users), and on edits of it that each break one promise.
 */
class OverloadChecksSpec extends AnyFlatSpec with Matchers:
  private val ramp: Overload = Fixtures.faultRun("short-reset-redis-killed-trickle/overload-ramp").overload.get
  private def failed(o: Overload) = OverloadChecks.checks(o).filterNot(_.passed).map(_.name)
  private def edit(factor: Double)(f: OverloadStep => OverloadStep) =
    ramp.copy(steps = ramp.steps.map(s => if s.factor == factor then f(s) else s))

  "The recorded overload ramp" should "pass every check, shedding only above the limit" in {
    ramp.steps.map(_.factor) shouldBe Seq(0.5, 1.0, 1.5, 2.0, 3.0)
    failed(ramp) shouldBe empty
    ramp.steps.filter(_.factor <= 1.0).map(_.shedPerSecond) shouldBe Seq(0.0, 0.0)
  }

  "A ramp that sheds at the limit itself" should "fail on shedding below the limit only" in {
    failed(edit(0.5)(_.copy(shedPerSecond = 5))) shouldBe Seq("no shedding below the limit")
  }

  "A ramp that admits everyone at twice the limit" should "fail for want of 503s above the limit" in {
    failed(edit(2.0)(_.copy(shedPerSecond = 0))) shouldBe Seq("503 above the limit")
  }

  "A 503 without Retry-After" should "fail the Retry-After check, counting it" in {
    val broken = edit(3.0)(_.copy(shedWithoutRetryAfter = 2))
    failed(broken) shouldBe Seq("every 503 carries Retry-After")
    OverloadChecks.checks(broken).find(!_.passed).get.detail shouldBe "2 without"
  }

  "A 503 that waits for the third party" should "fail as a refusal not given at once" in {
    failed(edit(1.5)(_.copy(shedP50Ms = Some(60.0)))) shouldBe
      Seq("503 at once (p50 below a tenth of the third party's latency)")
  }

  "Admitted requests queued behind the shed ones" should "fail the admitted latency check" in {
    failed(edit(2.0)(_.copy(okP50Ms = Some(1200.0)))) shouldBe
      Seq("admitted requests near the third party's latency (p50 below 2x)")
  }

  "An answer neither 200 nor 503, or a request never answered" should "each fail the answers check" in {
    val check = "only 200 and 503, every request answered"
    failed(edit(3.0)(_.copy(otherStatuses = Map("500" -> 1)))) shouldBe Seq(check)
    failed(edit(3.0)(_.copy(unanswered = 1))) shouldBe Seq(check)
  }

  "A probe of /hello or /health that failed" should "fail the probes check" in {
    failed(edit(3.0)(_.copy(probesFailed = 1))) shouldBe Seq("/hello and /health answered throughout")
  }

  "A latency" should "print with its decimals, and as - when there was none" in {
    OverloadChecks.ms(Some(0.4971), 1) shouldBe "0.5"
    OverloadChecks.ms(None, 0) shouldBe "-"
  }

  "A check" should "read as a Markdown line, a failure in bold" in {
    Check("a", true, "d").markdown shouldBe "pass a: d"
    Check("a", false, "d").markdown shouldBe "**FAIL** a: d"
  }
