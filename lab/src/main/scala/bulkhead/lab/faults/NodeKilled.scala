package bulkhead.lab.faults

import bulkhead.lab.load.{ClosedLoopUsers, RequestLog, UserGroup}
import bulkhead.lab.model.MetricsReading
import bulkhead.lab.process.{Children, Launch, SeedRedis, ServiceCluster, Stack}
import bulkhead.stub.Latency

import java.nio.file.Path
import scala.concurrent.duration.*

/**
 * The node-killed fault's setup. The blocking SOAP client caps each node at its work queue (threads / the third
 * party's latency), so the cluster's bound moves with its nodes: min(nodes x threads, clients) / latency. `soapTimeout`
 * is the service's SOAP timeout, the shipped one (`ClusterFaultsCommand` reads it from the service's reference.conf):
 * a shorter one made the survivors' own queueing time calls out. On two of three nodes, 100 clients on 50 threads
 * of 1 s calls wait ~1 s for a thread; with a 2 s timeout a call that starts after that wait has ~1 s left for a
 * 1 s answer, timed out by the dozen, and the timeouts opened the breaker every few seconds (503s and 504s from nodes
 * that were fine). The lookups the dead node held answer 504 at the pipeline's ask timeout.
 */
final case class NodeKilledSettings(soapTimeout: FiniteDuration, nodes: Int = NodeKilledSettings.Nodes, clients: Int = 100,
    workQueue: Int = 25, stubLatencyMs: Int = 1000, warmUp: FiniteDuration = 10.seconds, baseline: FiniteDuration = 10.seconds,
    hold: FiniteDuration = 20.seconds, recovery: FiniteDuration = 25.seconds, customers: Int = 1000):
  require(nodes >= 2, s"a node can be killed from 2 nodes on, was $nodes")
  require(soapTimeout.toMillis > stubLatencyMs, s"the SOAP timeout must exceed the stub's $stubLatencyMs ms")
  require(hold >= 15.seconds, "the hold must outlast the split-brain resolver's decision (~10-12 s after the kill)")
  def bound: Double = math.min(nodes * workQueue, clients) * 1000.0 / stubLatencyMs
  def boundWhat: String = s"min($nodes x $workQueue threads, $clients clients) / ${stubLatencyMs / 1000.0} s"

object NodeKilledSettings:
  /** Nodes of the cluster unless asked otherwise: the fewest whose majority survives losing one node. */
  val Nodes = 3

/**
 * `lab cluster-faults`: a Pekko Cluster of N service nodes under steady closed-loop load on the front (node 1), the
 * node with the highest address SIGKILLed (the split-brain resolver keeps the majority, and on a tie the lowest
 * address: the front), held, then started again on the same cluster port. Every request, the front's gauges and the
 * cluster as the front sees it are recorded each second.
 */
object NodeKilled:
  val Name = "node-killed"
  /** Seconds the run goes on once the restarted node serves HTTP: Pekko's join and the Receptionist's gossip. */
  private val MinAfterServing = 15.0

  def run(s: NodeKilledSettings, launch: Launch, work: Path, progress: String => Unit): NodeKilledRecord =
    val stack = Stack(launch, work)
    try
      val redis = stack.redis()
      SeedRedis.load(s"redis://127.0.0.1:${redis.port}", s.customers)
      val stub = stack.stub(Seq("--latency", Latency.Fixed(s.stubLatencyMs).describe, "--customers",
        s.customers.toString))
      val flags = Seq("--soap-mode", "blocking", "--soap-endpoint", stub.url("/soap"), "--redis-uri",
        s"redis://127.0.0.1:${redis.port}", "--set", s"bulkhead.enrichment.soap.work-queue.max=${s.workQueue}",
        "--set", s"bulkhead.enrichment.soap.request-timeout=${s.soapTimeout.toMillis}ms")
      val nodes = ServiceCluster.start(stack, s.nodes, flags, progress)
      val (front, victim, survivors) = (nodes.head, nodes.last, nodes.init)
      def path(n: Int) = s"/customers/${n % s.customers + 1}"
      progress(s"  warm-up ${s.warmUp.toSeconds} s, not recorded")
      FaultRunner.warmUp(front.served, s.clients, path, s.warmUp)
      val gauges = survivors.map(n => n.address -> ServiceGauges(n.served.child.pid, n.url("/metrics")))
      val before = gauges.map((a, g) => a -> g.resources()).toMap
      val log = RequestLog()
      def now = (System.nanoTime() - log.t0Nanos) / 1e9
      val frontGauges = ServiceGauges(front.served.child.pid, front.url("/metrics")).sampleEverySecond(log.t0Nanos)
      val cluster = follow(front.url("/metrics"), victim.address, log.t0Nanos)
      val users = ClosedLoopUsers.start(UserGroup("steady", s.clients, front.served.port, path), log)
      try
        progress(f"  ${s.clients} users on ${front.address}'s /customers, bound ${s.bound}%.0f req/s (${s.boundWhat})")
        Thread.sleep(s.baseline.toMillis)
        val killAt = now
        victim.served.child.kill()
        progress(f"  killed ${victim.address} (SIGKILL, pid ${victim.served.child.pid}) at $killAt%.1f s")
        Thread.sleep(s.hold.toMillis)
        val restartAt = now
        progress(f"  starting ${victim.address} again at $restartAt%.1f s")
        ServiceCluster.restart(stack, victim)
        val serving = now
        progress(f"  ${victim.address} serves HTTP ${serving - restartAt}%.1f s after its start; rejoining")
        // A JVM slow to start still gets time to rejoin and serve before the load stops.
        Thread.sleep((((restartAt + s.recovery.toSeconds).max(serving + MinAfterServing) - now) * 1000).toLong.max(0))
        val ended = users.stop()
        val endAt = now
        val rows = frontGauges.stop()
        val timeline = cluster.stop().values.toSeq.sortBy(_.second)
        Thread.sleep(500)
        val after = gauges.map((a, g) => a -> g.resources()).toMap
        val run = FaultRecord.of(Name, killAt, restartAt, endAt, log.all, s.clients, rows, before(front.address),
          after(front.address), ended)
        NodeKilledRecord(nodes.map(_.address), victim.address, s.clients, s.bound, s.boundWhat, run, timeline,
          survivors.map(n => SurvivorResources(n.address, before(n.address), after(n.address))))
      finally
        users.abandon()
        frontGauges.stop()
        cluster.stop()
    finally Children.stopAll()

  /** Members up and unreachable, and the routees listed on `watched`, from the front's /metrics once a second. */
  def follow(metricsUrl: String, watched: String, t0Nanos: Long): EverySecond[ClusterSecond] =
    EverySecond.start("lab-cluster-gauges", t0Nanos) { second =>
      val m = Stack.get(metricsUrl, 900.millis).toOption.map(MetricsReading.parse)
      ClusterSecond(second, m.flatMap(_.clusterMembersUp), m.flatMap(_.clusterUnreachable),
        m.flatMap(_.clusterRoutees.get(watched)))
    }
