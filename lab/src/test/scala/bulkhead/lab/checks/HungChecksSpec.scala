package bulkhead.lab.checks

import bulkhead.lab.faults.FaultCase
import bulkhead.lab.record.{DependencyReading, HungDependency, RecordJson, RunRecord}
import bulkhead.lab.testkit.{Fixtures, Scratch}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers


/**
 * The hung-dependency checks on runs recorded on this machine (`./bulkhead lab faults --only
 * stub-hung,stub-stopped,redis-stopped`, lab/src/test/resources/fixtures/faults/short-hung), and on their edits.
 */
class HungChecksSpec extends AnyFlatSpec with Matchers:
  private def run(name: String) = Fixtures.faultRun(s"short-hung/non-blocking/$name")
  private val hung = run("stub-hung")
  private val stopped = run("stub-stopped")
  private val redis = run("redis-stopped")
  private def hungOf(r: RunRecord) = r.fault.get.hung.get
  private def after(r: RunRecord)(f: DependencyReading => DependencyReading) =
    r.copy(fault = r.fault.map(t => t.copy(hung = t.hung.map(h => h.copy(after = f(h.after))))))
  private def failed(r: RunRecord) = FaultChecks.checks(r, r.fault.get.before).filterNot(_.passed).map(_.name)

  "Recorded runs of a dependency hung for the short form's hold" should "pass every check, the hung ones included" in {
    for r <- Seq(hung, stopped, redis) do
      withClue(r.info.name) {
        val t = r.fault.get
        t.expect shouldBe FaultCase.all.find(_.name == t.fault).get.expect
        hungOf(r).holdSeconds shouldBe 15.0
        FaultChecks.checks(r, t.before).filterNot(_.passed) shouldBe empty
        HungChecks.checks(r).map(_.name) shouldBe
          Seq("no stale call to the third party", "no stale command to Redis", "nothing held once the load stopped")
        FaultChecks.recoverySeconds(t).get should be <= FaultChecks.RecoveryLimitSeconds
      }
  }

  they should "show the third party that hung got no stale call, and every call carried its deadline" in {
    hungOf(hung).staleSoapCalls shouldBe Some(0)
    hungOf(hung).soapCallsWithDeadline.get should be > 0L
    hungOf(hung).frozen shouldBe false
    hungOf(stopped).frozen shouldBe true
  }

  "The stale-call check" should "fail one stale call to a third party that hung but was never stopped" in {
    failed(after(hung)(a => a.copy(stubStaleCalls = a.stubStaleCalls.map(_ + 1)))) shouldBe
      Seq("no stale call to the third party")
  }

  it should "let a stopped third party read stale what timed out while it was stopped, and not one call more" in {
    val timedOut = stopped.fault.get.statuses(504).toLong
    val stale = hungOf(stopped).staleSoapCalls.get
    val atBound = after(stopped)(a => a.copy(stubStaleCalls = a.stubStaleCalls.map(_ + timedOut - stale)))
    failed(atBound) shouldBe empty
    failed(after(atBound)(a => a.copy(stubStaleCalls = a.stubStaleCalls.map(_ + 1)))) shouldBe
      Seq("no stale call to the third party")
  }

  it should "fail when no call carried a deadline, or the stub could not be read" in {
    val before = hungOf(hung).before
    failed(after(hung)(a => a.copy(stubCallsWithDeadline = before.stubCallsWithDeadline,
      stubStaleCalls = before.stubStaleCalls))) shouldBe Seq("no stale call to the third party")
    failed(after(hung)(_.copy(stubStaleCalls = None))) shouldBe Seq("no stale call to the third party")
  }

  "The Redis check" should "count the profile reads Redis ran beyond the answers that used them" in {
    val t = redis.fault.get
    val h = hungOf(redis)
    h.degradedAnswers.get should be > 0.0
    val stale = h.staleRedisReads(t.statuses(200)).get
    stale should be <= redis.info.clients.toLong
    hungOf(hung).staleRedisReads(hung.fault.get.statuses(200)) shouldBe Some(0)
    failed(after(hung)(a => a.copy(redisProfileReads = a.redisProfileReads.map(_ + 5)))) shouldBe
      Seq("no stale command to Redis")
  }

  it should "let a stopped Redis run stale the commands in flight when it stopped, one per user, and not one more" in {
    val stale = hungOf(redis).staleRedisReads(redis.fault.get.statuses(200)).get
    val atBound = after(redis)(a => a.copy(redisProfileReads = a.redisProfileReads.map(
      _ + redis.info.clients - stale)))
    failed(atBound) shouldBe empty
    failed(after(atBound)(a => a.copy(redisProfileReads = a.redisProfileReads.map(_ + 1)))) shouldBe
      Seq("no stale command to Redis")
  }

  "The occupancy check" should "fail a SOAP call, a waiter or a request still held once the load stopped" in {
    failed(after(hung)(_.copy(soapInFlight = Some(3.0)))) shouldBe Seq("nothing held once the load stopped")
    failed(after(hung)(_.copy(soapWaiting = Some(1.0)))) shouldBe Seq("nothing held once the load stopped")
    failed(after(hung)(_.copy(enrichmentInFlight = None))) shouldBe Seq("nothing held once the load stopped")
  }

  "A run without a hung dependency" should "get none of these checks" in {
    HungChecks.checks(Fixtures.faultRun("reset")) shouldBe empty
  }

  "A hung run" should "survive a round trip through its result.json" in {
    val dir = Scratch.dir("stub-stopped")
    RecordJson.read(RecordJson.write(stopped, dir)) shouldBe Right(stopped)
  }
