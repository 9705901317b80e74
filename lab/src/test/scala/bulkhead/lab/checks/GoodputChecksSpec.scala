package bulkhead.lab.checks

import bulkhead.lab.record.{Goodput, RecordJson}
import bulkhead.lab.testkit.Scratch
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.Path

/**
 * The verdict on the undersized pool as `lab faults --only undersized-pool` recorded it on this machine
 * (lab/src/test/resources/fixtures/faults/undersized-pool: the three SOAP modes side by side, 8 slots, 100 users, the
 * third party at 1 s), and on edits of it that each break one promise.
 */
class GoodputChecksSpec extends AnyFlatSpec with Matchers:
  private val dir = Path.of(getClass.getResource("/fixtures/faults/undersized-pool").toURI)
  private val records = RecordJson.readAll(dir).fold(e => fail(e), identity)
  private val runs: Map[String, Goodput] = records.flatMap(_.goodput).map(g => g.mode -> g).toMap
  private val nonBlocking = runs("non-blocking")
  private def failed(g: Goodput) = GoodputChecks.checks(g).filterNot(_.passed).map(_.name)

  "The recorded undersized pool" should "pass every check in every SOAP mode" in {
    runs.keySet shouldBe Set("non-blocking", "blocking", "virtual")
    runs.values.foreach { g =>
      withClue(g.mode + ": ")(GoodputChecks.checks(g).filterNot(_.passed) shouldBe empty)
      g.slots shouldBe 8
      g.cap shouldBe 8.0
      g.okPerSecond should be >= 0.9 * g.cap
      g.refused should be > g.ok
    }
  }

  it should "survive a round trip through its result.json" in {
    val r = records.head
    RecordJson.read(RecordJson.write(r, Scratch.dir("undersized"))) shouldBe Right(r)
  }

  "A run below 0.9 of its cap" should "fail on its answers alone" in {
    failed(nonBlocking.copy(okPerSecond = 0.85 * nonBlocking.cap)) shouldBe Seq("answers at 0.9 of the cap or better")
  }

  "A run with a 504 or a request without an answer" should "fail as an answer the design does not give" in {
    val name = "the rest refused: only 200 and 503, every request answered"
    failed(nonBlocking.copy(statuses = nonBlocking.statuses + ("504" -> 1))) shouldBe Seq(name)
    failed(nonBlocking.copy(statuses = nonBlocking.statuses + ("error:timeout" -> 1))) shouldBe Seq(name)
    failed(nonBlocking.copy(statuses = nonBlocking.statuses - "503")) should contain(name)
  }

  "A 503 without Retry-After" should "fail" in {
    failed(nonBlocking.copy(refusedWithoutRetryAfter = 1)) shouldBe Seq("every 503 carries Retry-After")
  }

  "A refusal that came at the SOAP timeout" should "fail: the call waited for its slot as long as a call may take" in {
    failed(nonBlocking.copy(slowestRefusalMs = Some(nonBlocking.soapTimeoutMs))) shouldBe
      Seq("refusals faster than the SOAP timeout")
  }

  "The third party given more calls than its callers' slots, or not read" should "fail" in {
    val name = "the third party never above its callers' slots"
    failed(nonBlocking.copy(thirdPartyPeak = Some(nonBlocking.thirdPartySlots + nonBlocking.sharedBy + 1))) shouldBe
      Seq(name)
    failed(nonBlocking.copy(thirdPartyPeak = None)) shouldBe Seq(name)
  }

  it should "say when the peak came: in the warm-up or in the counted window" in {
    def detail(g: Goodput) = GoodputChecks.checks(g).find(_.name == "the third party never above its callers' slots")
      .get.detail
    detail(nonBlocking.copy(thirdPartyPeakSecond = Some(nonBlocking.from / 2))) should include(
      f"first read at second ${nonBlocking.from / 2}%.1f (in the warm-up, before second ${nonBlocking.from}%.0f)")
    detail(nonBlocking.copy(thirdPartyPeakSecond = Some(nonBlocking.from + 1))) should (include(
      f"first read at second ${nonBlocking.from + 1}%.1f") and not include "warm-up")
  }

  "A breaker that opened, or whose openings were not read" should "fail" in {
    failed(nonBlocking.copy(breakerOpenings = Some(1.0))) shouldBe Seq("circuit breaker never opened")
    failed(nonBlocking.copy(breakerOpenings = None)) shouldBe Seq("circuit breaker never opened")
  }

  "The faults verdict" should "hold the undersized runs and fail when one of them fails" in {
    RunChecks.of(records).undersized.map(_.record.goodput.get.mode).toSet shouldBe runs.keySet
    RunChecks.of(records).passed shouldBe true
    val broken = records.map(r => r.copy(goodput = r.goodput.map(g =>
      if g.mode == "virtual" then g.copy(breakerOpenings = Some(3.0)) else g)))
    RunChecks.of(broken).passed shouldBe false
  }
