package bulkhead.lab.checks

import bulkhead.lab.faults.FaultCase
import bulkhead.lab.record.RequestOutcome
import bulkhead.lab.model.MetricsReading
import bulkhead.lab.record.{FaultTimeline, OutcomeCount, RecordJson, RunRecord}
import bulkhead.lab.sample.Retained
import bulkhead.lab.testkit.{Fixtures, Scratch}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers


/** The verdict on fault runs recorded on this machine (lab/src/test/resources/fixtures/faults), and on their edits. */
class FaultChecksSpec extends AnyFlatSpec with Matchers:
  private val reset = Fixtures.faultRun("reset")
  private val redis = Fixtures.faultRun("redis-killed")
  private def timeline(r: RunRecord) = r.fault.get
  private def edit(r: RunRecord)(f: FaultTimeline => FaultTimeline) = r.copy(fault = r.fault.map(f))
  /** The run with the service's /metrics of each second (by its second) changed. */
  private def gauges(r: RunRecord)(f: (Int, MetricsReading) => MetricsReading) =
    r.copy(samples = r.samples.map(s => s.copy(metrics = s.metrics.map(f(s.second.toInt, _)))))
  private def failed(r: RunRecord, baseline: Retained = null) =
    FaultChecks.checks(r, Option(baseline).getOrElse(timeline(r).before)).filterNot(_.passed).map(_.name)

  "A recorded run of the reset fault" should "pass every check, with the breaker opening and closing" in {
    timeline(reset).expect shouldBe FaultCase.all.find(_.name == "reset").get.expect
    FaultChecks.checks(reset, timeline(reset).before).filterNot(_.passed) shouldBe empty
    timeline(reset).statuses.keySet should contain allOf (200, 502, 503)
    reset.faultSeconds.flatMap(_.breaker).max shouldBe 2.0
    FaultChecks.recoverySeconds(timeline(reset)).get should be <= FaultChecks.RecoveryLimitSeconds
  }

  it should "survive a round trip through its result.json" in {
    val dir = Scratch.dir("reset")
    RecordJson.read(RecordJson.write(reset, dir)) shouldBe Right(reset)
  }

  it should "see the breaker open by the service's count of openings when no sample caught the open state" in {
    val unseen = gauges(reset)((second, m) => m.copy(circuitState = Some(0.0),
      circuitOpenings = Some(if second > timeline(reset).injectAt.toInt then 1.0 else 0.0)))
    failed(unseen) shouldBe empty
    val never = gauges(reset)((_, m) => m.copy(circuitState = Some(0.0), circuitOpenings = Some(0.0)))
    failed(never) shouldBe Seq("circuit breaker opens, then closes")
  }

  it should "fail a fault that must leave the breaker closed when the count of openings rose" in {
    failed(gauges(redis)((_, m) => m.copy(circuitOpenings = Some(3.0)))) shouldBe empty
    val opened = gauges(redis)((second, m) => m.copy(circuitOpenings = Some(
      if second > timeline(redis).clearAt.toInt then 4.0 else 3.0)))
    failed(opened) shouldBe Seq("circuit breaker stays closed")
  }

  it should "fail when a status outside the design appears" in {
    failed(edit(reset)(t => t.copy(totals = t.totals :+ OutcomeCount("steady", RequestOutcome.Status(500), 1)))) shouldBe
      Seq("designed statuses only")
  }

  it should "fail when a request got no answer" in {
    failed(edit(reset)(t => t.copy(totals = t.totals :+ OutcomeCount("steady", RequestOutcome.Timeout, 3)))) shouldBe
      Seq("every request answered")
  }

  it should "fail when the breaker never opened, or did not close again" in {
    failed(gauges(reset)((_, m) => m.copy(circuitState = Some(0.0)))) shouldBe Seq("circuit breaker opens, then closes")
    val stuck = gauges(reset)((second, m) =>
      if second >= timeline(reset).injectAt.toInt then m.copy(circuitState = Some(2.0)) else m)
    failed(stuck) shouldBe Seq("circuit breaker opens, then closes")
  }

  it should "fail when throughput stays down after the fault clears" in {
    val clearTenth = (timeline(reset).clearAt * 10).toInt
    val down = edit(reset)(t => t.copy(okPerTenth = t.okPerTenth.zipWithIndex.map((n, i) =>
      if i >= clearTenth then n / 10 else n)))
    failed(down) shouldBe Seq("throughput back within 5 s")
  }

  it should "fail when threads or heap stay above their level before the fault" in {
    val before = timeline(reset).before
    val slack = FaultChecks.ThreadSlack
    failed(edit(reset)(t => t.copy(after = t.after.copy(platformThreads = before.platformThreads.map(_ + slack + 1)))))
      .shouldBe(Seq("platform threads back to baseline"))
    failed(edit(reset)(t => t.copy(after = t.after.copy(heapMb = before.heapMb.map(_ * 3 + 50))))) shouldBe
      Seq("heap back to the suite's baseline")
  }

  it should "fail when a thread dump or a heap reading failed, rather than pass for want of data" in {
    failed(edit(reset)(t => t.copy(after = t.after.copy(platformThreads = None)))) shouldBe
      Seq("platform threads back to baseline")
    failed(edit(reset)(t => t.copy(before = t.before.copy(platformThreads = None))), timeline(reset).before) shouldBe
      Seq("platform threads back to baseline")
    failed(edit(reset)(t => t.copy(after = t.after.copy(heapMb = None)))) shouldBe
      Seq("heap back to the suite's baseline")
  }

  it should "name the pools that grew when the thread check fails" in {
    val t = timeline(reset)
    val before = t.before.copy(pools = Map("bulkhead.soap.work-queue" -> 25, "other" -> 14))
    val after = Retained(before.platformThreads.map(_ + 9), t.after.heapMb,
      Map("bulkhead.soap.work-queue" -> 34, "other" -> 14))
    val check = FaultChecks.threads(before, after)
    check.passed shouldBe false
    check.detail should include("bulkhead.soap.work-queue 25 -> 34")
    check.detail should not include "other"
  }

  /** `n` runs of the recorded reset fault, one after the other, the i-th changed by `edit(i, run)`. */
  private def suite(n: Int)(edit: (Int, FaultTimeline) => FaultTimeline): Seq[FaultTimeline] =
    (1 to n).map(i => edit(i, timeline(reset).copy(fault = s"reset-$i")))

  "A suite of recorded runs" should "pass its suite-wide checks when threads and heap stay level" in {
    FaultChecks.suiteChecks(suite(12)((_, t) => t)).filterNot(_.passed) shouldBe empty
  }

  it should "fail the suite-wide thread check on a thread leaked per fault, which each run's check lets pass" in {
    val base = timeline(reset).before.platformThreads.get
    val runs = suite(12)((i, t) => t.copy(before = t.before.copy(platformThreads = Some(base + i - 1)),
      after = t.after.copy(platformThreads = Some(base + i))))
    runs.map(t => FaultChecks.threads(t.before, t.after).passed).distinct shouldBe Seq(true)
    val wide = FaultChecks.suiteChecks(runs).filterNot(_.passed)
    wide.map(_.name) shouldBe Seq("threads from the first fault's start to the last fault's end")
    wide.head.detail should include(s"$base before reset-1, ${base + 12} after reset-12")
  }

  it should "fail the heap checks on memory retained by every fault, though each run kept its own level" in {
    val base = timeline(reset).before.heapMb.get
    val retained = 8.0 // MB per fault: within a run's slack from its own start, not from the suite's
    val runs = suite(12)((i, t) => t.copy(before = t.before.copy(heapMb = Some(base + retained * (i - 1))),
      after = t.after.copy(heapMb = Some(base + retained * i))))
    runs.foreach(t => FaultChecks.heap(t.before, t.after).passed shouldBe true)
    val perRun = runs.map(t => FaultChecks.heap(runs.head.before, t.after).passed)
    perRun.head shouldBe true
    perRun.last shouldBe false
    FaultChecks.suiteChecks(runs).filterNot(_.passed).map(_.name) shouldBe
      Seq("heap from the first fault's start to the last fault's end")
  }

  it should "fail the suite-wide checks when the first or the last reading failed" in {
    val runs = suite(3)((i, t) => if i == 3 then t.copy(after = Retained(None, None)) else t)
    FaultChecks.suiteChecks(runs).filterNot(_.passed).map(_.name) shouldBe Seq(
      "threads from the first fault's start to the last fault's end",
      "heap from the first fault's start to the last fault's end")
  }

  it should "keep each pool's threads through result.json" in {
    val withPools = edit(reset)(t => t.copy(after = t.after.copy(pools = Map("bulkhead.soap.work-queue" -> 25,
      "main" -> 1))))
    val back = RecordJson.read(RecordJson.write(withPools, Scratch.dir("reset-pools")))
    back.map(r => timeline(r).after.pools) shouldBe Right(timeline(withPools).after.pools)
  }

  "A recorded Redis kill" should "pass: answers degraded while Redis was down, whole again after its restart" in {
    timeline(redis).expect shouldBe FaultCase.all.find(_.name == "redis-killed").get.expect
    FaultChecks.checks(redis, timeline(redis).before).filterNot(_.passed) shouldBe empty
    timeline(redis).statuses.keySet shouldBe Set(200)
  }

  it should "fail if answers were still degraded at the end (the connections never came back)" in {
    val last = redis.faultSeconds.last.second
    val stillDegraded = gauges(redis)((second, m) =>
      if second >= last - 3 then m.copy(loyaltyUnavailable = m.loyaltyUnavailable.map(_ + (second - last + 4) * 50))
      else m)
    failed(stillDegraded) shouldBe Seq("answers degraded (loyalty unavailable) while held, whole again after")
  }

  "The verdict of a run directory" should "check each fault against its service's first baseline, a node kill as one" in {
    val v = RunChecks.of(Seq(reset, redis, Fixtures.faultRun("node-killed-slow-restart")))
    v.runs.map(_.record.info.name) should contain theSameElementsAs Seq("non-blocking-reset",
      "non-blocking-redis-killed", "node-killed")
    v.runs.find(_.record.info.name == "node-killed").get.checks.map(_.name) should contain(
      "throughput back to 3/3 within 20 s of the restart")
    v.suites.map(_._1) shouldBe Seq("non-blocking")
    v.ramps shouldBe empty
    // The slow restart fails its return to 3/3: the directory's verdict with it.
    v.passed shouldBe false
  }
