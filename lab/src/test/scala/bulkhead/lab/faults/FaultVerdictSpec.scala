package bulkhead.lab.faults

import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.Files

/** The verdict on fault runs recorded on this machine (lab/src/test/resources/fixtures/faults), and on their edits. */
class FaultVerdictSpec extends AnyFlatSpec with Matchers:
  private def recorded(name: String): FaultRecord =
    val file = Files.createTempFile(name, ".json")
    Files.writeString(file, Fixtures.text(s"faults/$name.json"))
    FaultRecord.read(file)

  private val reset = recorded("reset")
  private val redis = recorded("redis-killed")
  private val resetExpect = FaultCase.all.find(_.name == "reset").get.expect
  private val redisExpect = FaultCase.all.find(_.name == "redis-killed").get.expect
  private def failed(r: FaultRecord, e: FaultExpectation) = FaultVerdict.checks(r, e).filterNot(_.passed).map(_.name)

  "A recorded run of the reset fault" should "pass every check, with the breaker opening and closing" in {
    FaultVerdict.checks(reset, resetExpect).filterNot(_.passed) shouldBe empty
    reset.statuses.keySet should contain allOf ("200", "502", "503")
    reset.seconds.flatMap(_.breaker).max shouldBe 2.0
    FaultVerdict.recoverySeconds(reset).get should be <= FaultVerdict.RecoveryLimitSeconds
  }

  it should "survive a round trip through its JSON file" in {
    val file = Files.createTempFile("reset", ".json")
    Files.writeString(file, reset.toJson)
    FaultRecord.read(file).toJson shouldBe reset.toJson // NaN latencies: compare the text, not the case classes
  }

  it should "fail when a status outside the design appears" in {
    val edited = reset.copy(totals = reset.totals + (("steady", "500") -> 1))
    failed(edited, resetExpect) shouldBe Seq("designed statuses only")
  }

  it should "fail when a request got no answer" in {
    val edited = reset.copy(totals = reset.totals + (("steady", "error:timeout") -> 3))
    failed(edited, resetExpect) shouldBe Seq("every request answered")
  }

  it should "fail when the breaker never opened, or did not close again" in {
    val never = reset.copy(seconds = reset.seconds.map(_.copy(breaker = Some(0.0))))
    failed(never, resetExpect) shouldBe Seq("circuit breaker opens, then closes")
    val stuck = reset.copy(seconds = reset.seconds.map(s =>
      if s.second >= reset.injectAt.toInt then s.copy(breaker = Some(2.0)) else s))
    failed(stuck, resetExpect) shouldBe Seq("circuit breaker opens, then closes")
  }

  it should "fail when throughput stays down after the fault clears" in {
    val clearTenth = (reset.clearAt * 10).toInt
    val down = reset.copy(okPerTenth = reset.okPerTenth.zipWithIndex.map((n, i) => if i >= clearTenth then n / 10 else n))
    failed(down, resetExpect) shouldBe Seq("throughput back within 5 s")
  }

  it should "fail when threads or heap stay above their level before the fault" in {
    failed(reset.copy(after = reset.after.copy(platformThreads = reset.before.platformThreads + 20)), resetExpect) shouldBe
      Seq("platform threads back to baseline")
    failed(reset.copy(after = reset.after.copy(heapMb = reset.before.heapMb * 3 + 50)), resetExpect) shouldBe
      Seq("heap back to baseline")
  }

  "A recorded Redis kill" should "pass: answers degraded while Redis was down, whole again after its restart" in {
    FaultVerdict.checks(redis, redisExpect).filterNot(_.passed) shouldBe empty
    redis.statuses.keySet shouldBe Set("200")
  }

  it should "fail if answers were still degraded at the end (the connections never came back)" in {
    val last = redis.seconds.last.second
    val stillDegraded = redis.copy(seconds = redis.seconds.map(s =>
      if s.second >= last - 3 then s.copy(degraded = s.degraded.map(_ + (s.second - last + 4) * 50)) else s))
    failed(stillDegraded, redisExpect) shouldBe Seq("answers degraded (loyalty unavailable) while held, whole again after")
  }
