package bulkhead.lab.checks

import bulkhead.lab.record.RequestOutcome
import bulkhead.lab.record.{FaultTimeline, LabPause, LateRequests, RecordJson, RunRecord, ServiceWatch}
import bulkhead.lab.report.FaultsReport
import bulkhead.lab.testkit.{Fixtures, Scratch}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers


/**
 * The verdict on hostile clients, on a run recorded on this machine (`lab faults --only large-heads`: 2,000
 * connections holding a head just under max-head-bytes, 200 sending one past it) and on its edits.
 */
class HostileChecksSpec extends AnyFlatSpec with Matchers:
  private val heads = Fixtures.faultRun("large-heads")
  private def timeline(r: RunRecord) = r.fault.get
  private def edit(r: RunRecord)(f: FaultTimeline => FaultTimeline) = r.copy(fault = r.fault.map(f))
  private def watched(r: RunRecord)(f: ServiceWatch => ServiceWatch) = edit(r)(t => t.copy(watch = t.watch.map(f)))
  private def failed(r: RunRecord) = FaultChecks.checks(r, timeline(r).before).filterNot(_.passed).map(_.name)
  private def hostileChecks(r: RunRecord) = HostileChecks.checks(timeline(r)).map(_.name)

  "A recorded run of large heads" should "pass every check, the hostile clients' included" in {
    FaultChecks.checks(heads, timeline(heads).before).filterNot(_.passed) shouldBe empty
    hostileChecks(heads) should have size 3
    val byGroup = timeline(heads).hostile.map(h => h.group -> h).toMap
    byGroup("large-heads").statuses shouldBe Map(200 -> 2000)
    byGroup("oversized-heads").statuses shouldBe Map(431 -> 200)
    byGroup("large-heads").heldHeapMb.get should be > timeline(heads).before.heapMb.get
    timeline(heads).watch.get.descriptorsMax.get should be > 2000
  }

  it should "survive a round trip through its result.json" in {
    val dir = Scratch.dir("large-heads")
    RecordJson.read(RecordJson.write(heads, dir)) shouldBe Right(heads)
  }

  it should "fail when /health was slower than a second, or unanswered, once the fault was injected" in {
    val at = timeline(heads).injectAt.toInt + 1
    failed(watched(heads)(w => w.copy(seconds = w.seconds.map(s =>
      if s.second == at then s.copy(healthWorstMs = 1500) else s)))) shouldBe
      Seq("/health within 1 s from the fault to the run's end")
    failed(watched(heads)(w => w.copy(seconds = w.seconds.map(s =>
      if s.second == at then s.copy(healthOk = s.healthOk - 1) else s)))) shouldBe
      Seq("/health within 1 s from the fault to the run's end")
    // Before the fault it is a figure, not a check.
    failed(watched(heads)(w => w.copy(seconds = w.seconds.map(s =>
      if s.second == 0 then s.copy(healthWorstMs = 1500) else s)))) shouldBe empty
  }

  it should "leave out of the slowest a probe the lab's own pause held, but not one it left unanswered" in {
    val at = timeline(heads).injectAt.toInt + 1
    def paused(ok: Int) = watched(heads)(w => w.copy(seconds = w.seconds.map(s =>
      if s.second == at then s.copy(labPausedProbes = 1, labPausedWorstMs = 1500, healthOk = s.healthOk - ok) else s),
      labPauses = Seq(LabPause(at + 0.2, at + 1.6, "a full GC to read the heap held by large-heads"))))
    failed(paused(0)) shouldBe empty
    val check = HostileChecks.health(timeline(paused(0)), timeline(paused(0)).watch.get)
    check.detail should include("1 overlapped the lab's own pause (a full GC to read the heap held by large-heads), " +
      "the slowest of them in 1500 ms, left out of the slowest")
    failed(paused(1)) shouldBe Seq("/health within 1 s from the fault to the run's end")
    FaultsReport.of(Seq(paused(0))).markdown should include(f"; the lab paused the service from ${at + 0.2}%.1f to " +
      f"${at + 1.6}%.1f s (a full GC to read the heap held by large-heads): 1 probes overlapped, the slowest in 1500 ms")
  }

  it should "take a 408 for a head held past the service's request-head-timeout as designed, and only then" in {
    def heads408(late408: Int, lateDesigned: Set[Int] = Set(408)) = edit(heads)(t => t.copy(hostile = t.hostile.map(h =>
      if h.group != "large-heads" then h
      else h.copy(outcomes = Map(RequestOutcome.Status(200) -> 1780, RequestOutcome.Status(408) -> 220),
        late = Some(LateRequests(10000, "the service's request-head-timeout", lateDesigned,
          Map(RequestOutcome.Status(408) -> late408, RequestOutcome.Status(200) -> 5)))))))
    failed(heads408(220)) shouldBe empty
    HostileChecks.designed(timeline(heads408(220)).hostile).detail should include(
      "large-heads: 200: 1,780, 408: 220 (225 lasted past the service's request-head-timeout, 10 s: 200: 5, 408: 220; " +
        "designed for them: 200, 408)")
    // A 408 sooner than the deadline is the service's fault, and so is a late 408 the design does not give.
    failed(heads408(200)) shouldBe Seq("hostile clients get designed answers only")
    HostileChecks.designed(timeline(heads408(200)).hostile).detail should include("NOT designed: 408")
    failed(heads408(220, Set.empty)) shouldBe Seq("hostile clients get designed answers only")
  }

  it should "fail when the log grew by a line a hostile request" in {
    val requests = timeline(heads).hostile.map(_.requests).sum
    val lineEach = watched(heads)(w => w.copy(logBytesAfter = w.logBytesBefore + requests * 200L))
    failed(lineEach) shouldBe Seq("log bounded (under 1 byte a hostile request, or 4,096 bytes in all)")
    // A few rate-limited lines are bounded whatever the count of requests.
    failed(watched(heads)(w => w.copy(logBytesAfter = w.logBytesBefore + 3000))) shouldBe empty
  }

  it should "fail when a hostile client got an answer the design does not give it" in {
    val other = edit(heads)(t => t.copy(hostile = t.hostile.map(h =>
      if h.group == "oversized-heads" then h.copy(outcomes = h.outcomes + (RequestOutcome.Status(500) -> 1)) else h)))
    failed(other) shouldBe Seq("hostile clients get designed answers only")
  }

  it should "fail when the run recorded no watch of the service" in {
    failed(edit(heads)(_.copy(watch = None))) shouldBe Seq("service watched (/health, log)")
  }

  it should "show its figures in the faults report: /health, log bytes, descriptors and each hostile group" in {
    val report = FaultsReport.of(Seq(heads))
    report.matrixHeader should contain allOf ("/health slowest", "log bytes", "descriptors before/max/after")
    val md = report.markdown
    md should include("hostile, large-heads")
    md should include("431: 200")
    md should include("while held (after a full GC)")
    md should include("/health (every 250 ms")
  }

  "A run without hostile clients" should "get no hostile checks (its watch is a figure)" in {
    hostileChecks(Fixtures.faultRun("reset")) shouldBe empty
  }
