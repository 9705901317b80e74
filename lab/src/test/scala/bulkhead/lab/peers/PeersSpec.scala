package bulkhead.lab.peers

import bulkhead.lab.model.Target
import bulkhead.lab.process.{Children, Served, Stack}
import bulkhead.lab.report.SideBySide
import bulkhead.lab.run.ScenarioRunner
import bulkhead.lab.scenario.Scenario
import bulkhead.lab.testkit.{Fixtures, Scratch}
import org.scalatest.BeforeAndAfterAll
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.nio.file.Path

/**
 * The seeds' servers and the ceiling, each in its own process, started by the lab as a scenario's targets. A peer that
 * a later case starts with flags of its own is started once with them, and answers /hello in its first case: a JVM
 * peer's start is seconds of the spec.
 */
@Slow
class PeersSpec extends AnyFlatSpec with Matchers with BeforeAndAfterAll:
  private val stack = Stack(Fixtures.launch, Scratch.dir("lab-peers"))
  override def afterAll(): Unit = Children.stopAll()

  private val maxThreads = 6
  // --blocking-pool-size is bulkhead's flag: the lab passes the peer only its own.
  private val flagged: Map[Target.Peer, Seq[String]] = Map(
    Target.AkkaHttp -> Seq("--blocking-pool-size", "3", "--routees", "5"),
    Target.Jetty -> Seq("--max-threads", maxThreads.toString, "--min-threads", "2", "--blocking-pool-size", "50"),
    Target.Tomcat -> Seq("--max-threads", maxThreads.toString, "--min-threads", "2", "--blocking-pool-size", "50"))
  // Started at its first case, stopped at its last (the flagged case, after its /hello) or at the spec's end.
  private val started = scala.collection.concurrent.TrieMap.empty[Target.Peer, Served]
  private def flaggedPeer(target: Target.Peer): Served =
    started.getOrElseUpdate(target, stack.peer(target, flagged(target)))
  private def stopFlagged(target: Target.Peer): Unit = started.remove(target).foreach(_.child.stop())

  Seq(Target.AkkaHttp, Target.Spray, Target.PekkoMinimal, Target.Jetty, Target.Tomcat, Target.Nginx).foreach { target =>
    s"The $target peer" should "answer /hello with OK" in {
      if flagged.contains(target) then
        val peer = flaggedPeer(target)
        Stack.get(peer.url("/hello")) shouldBe Right("OK")
      else
        val peer = stack.peer(target, Nil)
        try Stack.get(peer.url("/hello")) shouldBe Right("OK")
        finally peer.child.stop()
    }
  }

  "The Akka HTTP peer" should "run seed 001's work on the default dispatcher, on its blocking dispatcher, and on a timer" in {
    val peer = flaggedPeer(Target.AkkaHttp)
    try
      Seq("/work/default?ms=20", "/work/pool?ms=20", "/work/async?ms=20").foreach(p =>
        Stack.get(peer.url(p)) shouldBe Right("OK"))
      // Seed 001's dispatcher: threads named after it, as many as --blocking-pool-size once busy.
      (1 to 6).map(_ => scala.concurrent.Future(Stack.get(peer.url("/work/pool?ms=300")))(
        scala.concurrent.ExecutionContext.global)).foreach(f => scala.concurrent.Await.result(f,
        scala.concurrent.duration.Duration(10, "s")) shouldBe Right("OK"))
      val dump = bulkhead.lab.sample.ThreadSampler.dump(peer.child.pid).fold(e => fail(e), identity)
      "\"akka-http-peer-my-blocking-dispatcher-\\d+\"".r.findAllIn(dump).size shouldBe 3
    finally stopFlagged(Target.AkkaHttp)
  }

  // The pool each framework runs requests on, as PoolNames labels it (Tomcat's carries its address and port).
  Seq(Target.Jetty -> "qtp", Target.Tomcat -> "http-nio-127.0.0.1-auto-1-exec").foreach { (target, label) =>
    s"The $target peer" should "grow its worker pool to --max-threads under load, as its thread dump shows" in {
      val peer = flaggedPeer(target)
      try
        Stack.get(peer.url("/work/pool?ms=abc")) shouldBe Left(s"HTTP 400 from ${peer.url("/work/pool?ms=abc")}")
        val calls = (1 to 3 * maxThreads).map(_ => scala.concurrent.Future(Stack.get(peer.url("/work/pool?ms=200")))(
          scala.concurrent.ExecutionContext.global))
        calls.foreach(f => scala.concurrent.Await.result(f, scala.concurrent.duration.Duration(20, "s")) shouldBe Right("OK"))
        val pools = bulkhead.lab.sample.ThreadSampler.sample(peer.child.pid).fold(e => fail(e), identity)
        bulkhead.lab.sample.PoolSize.infer(Seq(pools)).find(_.pool == label).get.size shouldBe maxThreads
      finally stopFlagged(target)
    }
  }

  "A scenario with two targets" should "run their attempts interleaved and compare them side by side" in {
    val scenario = Scenario.load(Path.of("scenarios/ci/hello-side-by-side.conf").toAbsolutePath).fold(e => fail(e), identity)
    val results = ScenarioRunner(Fixtures.launch, Scratch.dir("lab-side"), println).runAll(scenario)
    val ok = results.map(_.fold(e => fail(e), identity))
    ok.map(_.info.name) shouldBe Seq("hello-side-by-side@pekko-minimal", "hello-side-by-side@nginx")
    ok.foreach { r =>
      r.attempts should have size 2
      r.attempts.foreach(_ should be > 0.0)
      r.load.answers.failedShare() shouldBe 0.0
    }
    SideBySide.table(ok) should include("pekko-minimal / nginx")
  }
