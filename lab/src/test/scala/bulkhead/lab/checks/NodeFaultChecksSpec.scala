package bulkhead.lab.checks

import bulkhead.lab.record.RequestOutcome
import bulkhead.lab.record.{OutcomeCount, RecordJson, RunRecord}
import bulkhead.lab.testkit.{Fixtures, Scratch}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers


/**
 * The node-killed verdict on a run recorded here on a loaded machine (3 nodes, 100 users, bound 75 req/s): the third
 * node SIGKILLed at 10.2 s, started again at 30.6 s, its JVM serving HTTP 40 s later, listed again 31 s after its start.
 */
class NodeFaultChecksSpec extends AnyFlatSpec with Matchers:
  private val run = Fixtures.faultRun("node-killed-slow-restart")
  private def check(r: RunRecord, prefix: String) = NodeFaultChecks.checks(r).find(_.name.startsWith(prefix)).get

  "A recorded node-killed run" should "answer every request with a designed status, and hold 2/3 of the bound" in {
    run.info.nodes should have size 3
    run.fault.get.statuses.keySet shouldBe Set(200, 504)
    for name <- Seq("every request answered", "designed statuses only", "throughput at 2/3") do
      withClue(check(run, name).detail)(check(run, name).passed shouldBe true)
    // The router dropped the dead node when Pekko saw it unreachable, about 5 s after the kill.
    (NodeFaultChecks.droppedAt(run).get - NodeFaultChecks.killAt(run)) shouldBe (5.8 +- 0.1)
  }

  it should "fail the return to 3/3: the restarted node was routed to 31 s after its start, past 20 s" in {
    val restored = check(run, "throughput back to 3/3")
    restored.passed shouldBe false
    restored.detail should include("listed again by the front's router 31.4 s after the restart")
  }

  it should "never take the two nodes left for all three, whatever window the answers' waves fall in" in {
    // 80 % of 75 req/s over 3 s is more than 2 nodes of 25 threads answer, even in their best seconds (60 in one).
    val rejoined = NodeFaultChecks.rejoinedAt(run).get
    val killAt = NodeFaultChecks.killAt(run)
    run.faultSeconds.filter(s => s.second > killAt + 8 && s.second < rejoined).map(_.ok).max should be >= 60
    NodeFaultChecks.firstWindow(run, killAt + 8, 0.8 * NodeFaultChecks.bound(run)).get should be >
      rejoined.toDouble
  }

  it should "fail a status the design does not give for a dead node, and thread growth on a survivor" in {
    val with502 = run.copy(fault = run.fault.map(t =>
      t.copy(totals = t.totals :+ OutcomeCount("steady", RequestOutcome.Status(502), 1))))
    check(with502, "designed statuses only").passed shouldBe false
    val survivor = NodeFaultChecks.survivors(run)(1)
    val leaking = run.copy(fault = run.fault.map(t => t.copy(nodeKill = t.nodeKill.map(k => k.copy(others =
      k.others.updated(0, survivor.copy(after = survivor.after.copy(platformThreads =
        survivor.before.platformThreads.map(_ + 100)))))))))
    check(leaking, s"platform threads back to baseline on ${survivor.node}").passed shouldBe false
    check(run, s"platform threads back to baseline on ${survivor.node}").passed shouldBe true
  }

  it should "check the front and every other node that stayed up, the front first" in {
    NodeFaultChecks.survivors(run).map(_.node) shouldBe run.info.nodes.init
    NodeFaultChecks.checks(run).map(_.name).filter(_.startsWith("platform threads")) shouldBe
      run.info.nodes.init.map(n => s"platform threads back to baseline on $n")
  }

  it should "survive a round trip through its result.json" in {
    RecordJson.read(RecordJson.write(run, Scratch.dir("node-killed"))) shouldBe Right(run)
  }
