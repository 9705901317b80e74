package bulkhead.lab.checks

import bulkhead.lab.record.{NodeEvent, RunRecord}
import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/**
 * The verdict on the other node faults, each recorded here once (3 nodes, 100 users, bound 75 req/s, a loaded
 * machine): a node SIGSTOPped for 15 s, a node whose cluster traffic was dropped for 15 s (nftables), a node killed
 * and started again three times in a row.
 */
class NodeFaultsRecordedSpec extends AnyFlatSpec with Matchers:
  private val paused = Fixtures.faultRun("node-paused")
  private val partitioned = Fixtures.faultRun("node-partitioned")
  private val loop = Fixtures.faultRun("restart-loop")
  private def check(r: RunRecord, prefix: String) = NodeFaultChecks.checks(r).find(_.name.startsWith(prefix)).get
  private def events(r: RunRecord) = NodeFaultChecks.kill(r).events

  "A recorded node-paused run" should "pass: the router dropped the frozen node, which left once woken and rejoined" in {
    for c <- NodeFaultChecks.checks(paused) do withClue(c.detail)(c.passed shouldBe true)
    (NodeFaultChecks.droppedAt(paused).get - NodeFaultChecks.killAt(paused)) shouldBe (4.0 +- 0.1)
    // Woken, it learnt the others had quarantined it and downed itself: exit 1, 2.5 s after SIGCONT.
    events(paused).map(_.what).take(3) shouldBe Seq("SIGSTOP", "SIGCONT", "exited 1")
    NodeFaultChecks.restartAt(paused) shouldBe (27.8 +- 0.1)
    NodeFaultChecks.rejoinedAt(paused) shouldBe Some(35)
  }

  "A recorded node-partitioned run" should "pass: the cut-off node downed itself and nobody else left" in {
    for c <- NodeFaultChecks.checks(partitioned) do withClue(c.detail)(c.passed shouldBe true)
    val exit = events(partitioned).find(_.what.startsWith("exited")).get
    exit.what shouldBe "exited 1"
    // Before the heal: alone on its side, its own resolver downed it.
    exit.second should be < NodeFaultChecks.clearAt(partitioned)
    check(partitioned, "no node that stayed up").detail should include("2 nodes up throughout")
  }

  it should "fail when a node that stayed up left the cluster" in {
    val front = partitioned.info.nodes.head
    val downedFront = partitioned.copy(fault = partitioned.fault.map(t => t.copy(nodeKill = t.nodeKill.map(k =>
      k.copy(events = k.events :+ NodeEvent(21.0, front, "exited 1"))))))
    val stayed = check(downedFront, "no node that stayed up")
    stayed.passed shouldBe false
    stayed.detail shouldBe s"$front exited 1 at 21.0 s"
  }

  "A recorded restart-loop run" should "pass, its return read from the last start once the dead incarnations left" in {
    for c <- NodeFaultChecks.checks(loop) do withClue(c.detail)(c.passed shouldBe true)
    events(loop).count(_.what.startsWith("SIGKILL")) shouldBe 3
    NodeFaultChecks.restartAt(loop) shouldBe (34.3 +- 0.1)
    NodeFaultChecks.rejoinedAt(loop) shouldBe Some(46)
  }

  it should "not take a killed incarnation's routees, still listed, for the new one's" in {
    val killedAt = events(loop).filter(_.what.startsWith("SIGKILL")).last.second.toInt
    val killed = NodeFaultChecks.kill(loop).killed
    // The front lists a node's routees until it sees it unreachable, seconds after its kill.
    val stale = loop.copy(samples = loop.samples.map(s =>
      if s.second >= killedAt && s.second < killedAt + 3 then
        s.copy(metrics = s.metrics.map(m => m.copy(clusterMembersUp = Some(3.0),
          clusterRoutees = m.clusterRoutees + (killed -> 20.0))))
      else s))
    NodeFaultChecks.rejoinedAt(stale) shouldBe Some(46)
  }
