package bulkhead.lab.faults

import bulkhead.lab.load.RequestOutcome
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
  private def failed(r: FaultRecord, e: FaultExpectation, baseline: Resources = null) =
    FaultVerdict.checks(r, e, Option(baseline).getOrElse(r.before)).filterNot(_.passed).map(_.name)

  "A recorded run of the reset fault" should "pass every check, with the breaker opening and closing" in {
    FaultVerdict.checks(reset, resetExpect, reset.before).filterNot(_.passed) shouldBe empty
    reset.statuses.keySet should contain allOf (200, 502, 503)
    reset.seconds.flatMap(_.breaker).max shouldBe 2.0
    FaultVerdict.recoverySeconds(reset).get should be <= FaultVerdict.RecoveryLimitSeconds
  }

  it should "survive a round trip through its JSON file" in {
    val file = Files.createTempFile("reset", ".json")
    Files.writeString(file, reset.toJson)
    FaultRecord.read(file).toJson shouldBe reset.toJson // NaN latencies: compare the text, not the case classes
  }

  it should "see the breaker open by the service's count of openings when no sample caught the open state" in {
    val unseen = reset.seconds.map(s => s.copy(breaker = Some(0.0),
      breakerOpenings = Some(if s.second > reset.injectAt.toInt then 1.0 else 0.0)))
    failed(reset.copy(seconds = unseen), resetExpect) shouldBe empty
    val never = reset.seconds.map(_.copy(breaker = Some(0.0), breakerOpenings = Some(0.0)))
    failed(reset.copy(seconds = never), resetExpect) shouldBe Seq("circuit breaker opens, then closes")
  }

  it should "fail a fault that must leave the breaker closed when the count of openings rose" in {
    val quiet = redis.seconds.map(s => s.copy(breakerOpenings = Some(3.0)))
    failed(redis.copy(seconds = quiet), redisExpect) shouldBe empty
    val opened = redis.seconds.map(s => s.copy(breakerOpenings = Some(if s.second > redis.clearAt.toInt then 4.0
      else 3.0)))
    failed(redis.copy(seconds = opened), redisExpect) shouldBe Seq("circuit breaker stays closed")
  }

  it should "fail when a status outside the design appears" in {
    val edited = reset.copy(totals = reset.totals + (("steady", RequestOutcome.Status(500)) -> 1))
    failed(edited, resetExpect) shouldBe Seq("designed statuses only")
  }

  it should "fail when a request got no answer" in {
    val edited = reset.copy(totals = reset.totals + (("steady", RequestOutcome.Timeout) -> 3))
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
    val slack = FaultVerdict.ThreadSlack
    failed(reset.copy(after = reset.after.copy(platformThreads = reset.before.platformThreads + slack + 1)),
      resetExpect) shouldBe Seq("platform threads back to baseline")
    failed(reset.copy(after = reset.after.copy(heapMb = reset.before.heapMb * 3 + 50)), resetExpect) shouldBe
      Seq("heap back to the suite's baseline")
  }

  it should "fail when a thread dump or a heap reading failed, rather than pass for want of data" in {
    failed(reset.copy(after = reset.after.copy(platformThreads = -1)), resetExpect) shouldBe
      Seq("platform threads back to baseline")
    failed(reset.copy(before = reset.before.copy(platformThreads = -1)), resetExpect, reset.before) shouldBe
      Seq("platform threads back to baseline")
    failed(reset.copy(after = reset.after.copy(heapMb = Double.NaN)), resetExpect) shouldBe
      Seq("heap back to the suite's baseline")
  }

  it should "name the pools that grew when the thread check fails" in {
    val before = reset.before.copy(pools = Map("bulkhead.soap.work-queue" -> 25, "other" -> 14))
    val after = Resources(before.platformThreads + 9, reset.after.heapMb,
      Map("bulkhead.soap.work-queue" -> 34, "other" -> 14))
    val check = FaultVerdict.threads(reset.copy(before = before, after = after))
    check.passed shouldBe false
    check.detail should include("bulkhead.soap.work-queue 25 -> 34")
    check.detail should not include "other"
  }

  /** `n` runs of the recorded reset fault, one after the other, the i-th changed by `edit(i, run)`. */
  private def suite(n: Int)(edit: (Int, FaultRecord) => FaultRecord): Seq[FaultRecord] =
    (1 to n).map(i => edit(i, reset.copy(fault = s"reset-$i")))

  "A suite of recorded runs" should "pass its suite-wide checks when threads and heap stay level" in {
    val runs = suite(12)((_, r) => r)
    FaultVerdict.suiteChecks(runs).filterNot(_.passed) shouldBe empty
  }

  it should "fail the suite-wide thread check on a thread leaked per fault, which each run's check lets pass" in {
    val base = reset.before.platformThreads
    val runs = suite(12)((i, r) => r.copy(before = r.before.copy(platformThreads = base + i - 1),
      after = r.after.copy(platformThreads = base + i)))
    runs.map(r => FaultVerdict.threads(r).passed).distinct shouldBe Seq(true)
    val wide = FaultVerdict.suiteChecks(runs).filterNot(_.passed)
    wide.map(_.name) shouldBe Seq("threads from the first fault's start to the last fault's end")
    wide.head.detail should include(s"$base before reset-1, ${base + 12} after reset-12")
  }

  it should "fail the heap checks on memory retained by every fault, though each run kept its own level" in {
    val base = reset.before.heapMb
    val retained = 8.0 // MB per fault: within a run's slack from its own start, not from the suite's
    val runs = suite(12)((i, r) => r.copy(before = r.before.copy(heapMb = base + retained * (i - 1)),
      after = r.after.copy(heapMb = base + retained * i)))
    runs.foreach(r => (r.after.heapMb <= r.before.heapMb * FaultVerdict.HeapFactor + FaultVerdict.HeapSlackMb)
      shouldBe true)
    val perRun = runs.map(r => FaultVerdict.heap(r, runs.head.before).passed)
    perRun.head shouldBe true
    perRun.last shouldBe false
    FaultVerdict.suiteChecks(runs).filterNot(_.passed).map(_.name) shouldBe
      Seq("heap from the first fault's start to the last fault's end")
  }

  it should "fail the suite-wide checks when the first or the last reading failed" in {
    val runs = suite(3)((i, r) => if i == 3 then r.copy(after = Resources(-1, Double.NaN)) else r)
    FaultVerdict.suiteChecks(runs).filterNot(_.passed).map(_.name) shouldBe Seq(
      "threads from the first fault's start to the last fault's end",
      "heap from the first fault's start to the last fault's end")
  }

  it should "survive its pools through the JSON file" in {
    val withPools = reset.copy(after = reset.after.copy(pools = Map("bulkhead.soap.work-queue" -> 25, "main" -> 1)))
    val file = Files.createTempFile("reset-pools", ".json")
    Files.writeString(file, withPools.toJson)
    FaultRecord.read(file).after.pools shouldBe withPools.after.pools
  }

  "A recorded Redis kill" should "pass: answers degraded while Redis was down, whole again after its restart" in {
    FaultVerdict.checks(redis, redisExpect, redis.before).filterNot(_.passed) shouldBe empty
    redis.statuses.keySet shouldBe Set(200)
  }

  it should "fail if answers were still degraded at the end (the connections never came back)" in {
    val last = redis.seconds.last.second
    val stillDegraded = redis.copy(seconds = redis.seconds.map(s =>
      if s.second >= last - 3 then s.copy(degraded = s.degraded.map(_ + (s.second - last + 4) * 50)) else s))
    failed(stillDegraded, redisExpect) shouldBe Seq("answers degraded (loyalty unavailable) while held, whole again after")
  }
