package bulkhead.service.cluster

import bulkhead.service.testkit.HttpProbe.*
import bulkhead.service.testkit.TestStub.*
import bulkhead.service.testkit.TestService.*
import bulkhead.service.testkit.{RedisProcess, ServiceProcess}
import org.apache.pekko.actor.ExtendedActorSystem
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.net.http.HttpTimeoutException
import java.nio.file.Path
import java.util.concurrent.ExecutionException

/**
 * Two service JVMs joined over Artery on loopback, in front of a real redis-server and the real stub: lookups routed
 * across nodes and answered back, then one node SIGKILLed under load.
 */
@Slow
class ClusterRoutingSpec extends AnyFlatSpec with Matchers:

  "A service without cluster settings" should "keep the local actor provider and open no remoting socket" in
    withService() { s =>
      s.system.classicSystem.asInstanceOf[ExtendedActorSystem].provider.getClass.getName shouldBe
        "org.apache.pekko.actor.LocalActorRefProvider"
      // A remoting actor system has a host and a port in its address; a local one has neither.
      s.system.address.hasLocalScope shouldBe true
      s.system.address.port shouldBe None
      get(url(s, "/metrics")).body should not include "cluster_"
    }

  "Two service nodes" should "route lookups across nodes, and answer only designed statuses when one is killed" in
    RedisProcess.withRedis { redis =>
      withStub(latency = "fixed:1000") { stub =>
        // keep-majority keeps, on a tie, the side with the lowest address: the front (A) takes the lower port.
        val Seq(portA, portB) = Seq(RedisProcess.freePort(), RedisProcess.freePort()).sorted
        val common = Seq("--soap-endpoint", endpoint(stub), "--redis-uri", redis.uri, "--routees", "2",
          "--parallelism-min", "2", "--parallelism-max", "4", "--blocking-pool-size", "4",
          // The pipeline's ask times out at request-timeout + redis timeout + 2 x retry-after = 2 + 1 + 2 = 5 s.
          "--set", "bulkhead.enrichment.soap.request-timeout=2s", "--set", "bulkhead.service.server.listeners=1")
        val dir = Path.of("target", "cluster-routing-spec").toAbsolutePath
        val a = ServiceProcess.start("node-a", dir, common ++ Seq("--cluster-port", portA.toString))
        val b = ServiceProcess.start("node-b", dir,
          common ++ Seq("--cluster-port", portB.toString, "--seed-node", s"127.0.0.1:$portA"))
        val started = System.nanoTime()
        def at = f"${(System.nanoTime() - started) / 1e9}%.1f s"
        try
          ServiceProcess.awaitReady(a)
          ServiceProcess.awaitReady(b)
          val nodeA = s"127.0.0.1:$portA"
          val nodeB = s"127.0.0.1:$portB"
          def metrics(node: ServiceProcess) = get(node.url("/metrics"), timeoutSeconds = 5).body
          def routees(text: String, node: String) = metric(text, s"""cluster_routees{node="$node"}""")
          def lookups(text: String, node: String) = metric(text, s"""cluster_routee_lookups_total{node="$node"}""")

          // Joined: both members up, and A's router lists the routees of both nodes.
          withClue(s"node A's log:\n${a.logTail}\nnode B's log:\n${b.logTail}\n") {
            eventually(tries = 600) {
              val m = metrics(a)
              metric(m, "cluster_members_up").contains(2.0) && routees(m, nodeA).contains(2.0) &&
                routees(m, nodeB).contains(2.0)
            } shouldBe true
          }
          println(s"joined, A routes to 2 + 2 routees at $at")

          // Routed across nodes: every lookup sent to A's front is answered, and B's routees served some of them.
          val ids = 1 to 20
          val replies = ids.map(id => id -> getAsync(a.url(s"/customers/$id"), timeoutSeconds = 20))
            .map((id, r) => id -> r.get())
          for (id, r) <- replies do
            withClue(s"/customers/$id: ${r.body}") {
              r.status shouldBe 200
              r.body should startWith(s"""{"id":$id,"name":""")
            }
          val (servedA, servedB) = (lookups(metrics(a), nodeA).get, lookups(metrics(b), nodeB).get)
          servedB should be > 0.0
          servedA + servedB shouldBe ids.size.toDouble
          println(s"routed: A's routees served $servedA, B's $servedB lookups at $at")

          // B killed while it holds lookups: answers stay designed statuses, bounded by the ask timeout.
          val designed = Set(200, 503, 504)
          val inFlight = (101 to 110).map(id => getAsync(a.url(s"/customers/$id"), timeoutSeconds = 20))
          eventually(tries = 100, pauseMs = 20)(lookups(metrics(b), nodeB).exists(_ > servedB)) shouldBe true
          b.kill()
          val killedAt = System.nanoTime()
          println(s"node B killed at $at (${java.time.LocalTime.now()}, compare its UNREACHABLE line in node-a.log)")
          val whileKilled = inFlight.map(answer)
          all(whileKilled) should (be(200) or be(503) or be(504))
          // Lookups B held were answered by the ask timeout, those A held by A.
          whileKilled should contain(504)
          whileKilled should contain(200)
          println(s"in flight at the kill: ${whileKilled.groupBy(identity).view.mapValues(_.size).toMap} at $at")

          // The router forgets B once it is unreachable: then every lookup is served by A.
          val afterKill = Vector.newBuilder[Int]
          val recovered = eventually(tries = 40, pauseMs = 0) {
            val batch = (201 to 204).map(id => getAsync(a.url(s"/customers/$id"), timeoutSeconds = 20)).map(answer)
            afterKill ++= batch
            batch.forall(_ == 200)
          }
          recovered shouldBe true
          val statuses = afterKill.result()
          all(statuses) should (be(200) or be(503) or be(504))
          println(f"all lookups served by A ${(System.nanoTime() - killedAt) / 1e9}%.1f s after the kill; answers " +
            s"meanwhile: ${statuses.groupBy(identity).view.mapValues(_.size).toMap}")
          routees(metrics(a), nodeB) shouldBe None

          // The split-brain resolver downs B (A holds the lowest address): A alone is up, nothing unreachable.
          eventually(tries = 300) {
            val m = metrics(a)
            metric(m, "cluster_members_up").contains(1.0) && metric(m, "cluster_members_unreachable").contains(0.0)
          } shouldBe true
          a.isAlive shouldBe true
          println(f"B downed and removed ${(System.nanoTime() - killedAt) / 1e9}%.1f s after the kill")
        finally
          b.kill()
          a.stop()
      }
    }

  /** The status of an answer; a request that hangs past its client timeout fails the test, naming it. */
  private def answer(reply: java.util.concurrent.CompletableFuture[Reply]): Int =
    try reply.get().status
    catch
      case e: ExecutionException if e.getCause.isInstanceOf[HttpTimeoutException] =>
        fail("a request hung past its 20 s client timeout")
