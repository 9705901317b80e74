package bulkhead.lab.faults

import bulkhead.lab.model.Bound
import bulkhead.lab.process.{Children, ClusterNode, Dependencies, Launch, ServiceCluster, Stack}
import bulkhead.lab.record.{NodeRetained, RunRecord}
import bulkhead.lab.sample.{Retained, ServiceSampler}
import bulkhead.stub.Latency

import java.nio.file.Path
import scala.concurrent.duration.*

/**
 * The setup of a node fault (`lab cluster-faults`). The blocking SOAP client caps each node at its work queue
 * (threads / the third party's latency), so the cluster's bound moves with its nodes: min(nodes x threads, clients) /
 * latency. `soapTimeout` is the service's SOAP timeout, the shipped one (`ClusterFaultsCommand` reads it from the
 * service's reference.conf): a shorter one made the survivors' own queueing time calls out. On two of three nodes,
 * 100 clients on 50 threads of 1 s calls wait ~1 s for a thread; with a 2 s timeout a call that starts after that
 * wait has ~1 s left for a 1 s answer, timed out by the dozen, and the timeouts opened the breaker every few seconds
 * (503s and 504s from nodes that were fine). The lookups the faulted node held answer 504 at the pipeline's ask
 * timeout. `hold` is how long a kill, a pause or a partition lasts: past the split-brain resolver's decision.
 */
final case class ClusterFaultSettings(soapTimeout: FiniteDuration, nodes: Int = ClusterFaultSettings.Nodes,
    clients: Int = 100, workQueue: Int = 25, stubLatencyMs: Int = 1000, warmUp: FiniteDuration = 10.seconds,
    baseline: FiniteDuration = 10.seconds, hold: FiniteDuration = 15.seconds, recovery: FiniteDuration = 25.seconds,
    customers: Int = 1000):
  require(nodes >= 2, s"a node can be killed from 2 nodes on, was $nodes")
  require(soapTimeout.toMillis > stubLatencyMs, s"the SOAP timeout must exceed the stub's $stubLatencyMs ms")
  require(hold >= 15.seconds, "the hold must outlast the split-brain resolver's decision (~10-12 s after the fault)")
  def bound: Double = math.min(nodes * workQueue, clients) * 1000.0 / stubLatencyMs
  def stubLatency: Latency.Fixed = Latency.Fixed(stubLatencyMs)
  def boundWhat: String = s"min($nodes x $workQueue threads, $clients clients) / ${stubLatencyMs / 1000.0} s"

object ClusterFaultSettings:
  /** Nodes of the cluster unless asked otherwise: the fewest whose majority survives losing one node. */
  val Nodes = 3

/**
 * `lab cluster-faults`, one fault: a Pekko Cluster of N service nodes under steady closed-loop load on the front
 * (node 1), the node with the highest address (the split-brain resolver keeps the majority, and on a tie the lowest
 * address: the front) killed, paused, partitioned or restarted in a loop ([[NodeFault]]), then started again on the
 * same cluster port once gone. The Redis, stub and nodes are brought up as a scenario's cluster is; the run goes
 * through the lab's one measuring loop ([[FaultRun]]), every node sampled each second (the front's /metrics hold the
 * cluster as it sees it), and is written as `<dir>/<fault>/result.json`.
 */
object ClusterFaultRun:
  /** The SOAP client whose threads cap each node, so that the cluster's bound moves with its nodes. */
  val SoapMode = "blocking"

  /** Whether `fault` can run here: a partition needs its own network namespace, nft and cgroup v2. */
  def available(fault: NodeFault, dir: Path): Either[String, Unit] = fault match
    case NodeFault.Partitioned => Partition.open(dir).map(_.close())
    case _ => Right(())

  def run(fault: NodeFault, s: ClusterFaultSettings, launch: Launch, dir: Path, progress: String => Unit): RunRecord =
    val stack = Stack(launch, dir)
    val partition = Option.when(fault == NodeFault.Partitioned)(
      Partition.open(dir).fold(e => throw IllegalStateException(s"${fault.name}: $e"), identity))
    try
      val deps = Dependencies.start(stack, dir, Some(s.customers),
        Some(Seq("--latency", s.stubLatency.describe, "--customers", s.customers.toString)))
      val flags = Seq("--soap-mode", SoapMode, "--set", s"bulkhead.enrichment.soap.work-queue.max=${s.workQueue}",
        "--set", s"bulkhead.enrichment.soap.request-timeout=${s.soapTimeout.toMillis}ms")
      // The victim starts in the partition's cgroup: a socket keeps the cgroup it was made in.
      val nodes = ServiceCluster.start(stack, s.nodes, flags ++ deps.serviceFlags, progress,
        prefixOf = i => if i == s.nodes - 1 then partition.fold(Nil)(_.prefix) else Nil)
      val (front, victim, survivors) = (nodes.head, nodes.last, nodes.init)
      progress(s"  warm-up ${s.warmUp.toSeconds} s, not recorded")
      FaultWarmUp.run(front.served, s.clients, FaultRan.ids(front.url("/customers"), s.customers), s.warmUp)
      def retained(n: ClusterNode) = Retained.read(n.served.child.pid, n.url("/metrics"))
      def sampler(n: ClusterNode) = ServiceSampler(n.served.child.pid, Some(n.url("/metrics")))
      val before = survivors.map(n => n.address -> retained(n)).toMap
      val victimSampler = FaultedNodeSampler(sampler(victim))
      var logs = nodes.map(_.served.child.log)
      val driver = NodeFaultDriver(fault, s, stack, nodes, partition, again =>
        logs :+= again.served.child.log
        victimSampler.follow(sampler(again)), victimSampler.pause, progress)
      val samplers = ServiceSampler(front.served.child.pid, Some(front.url("/metrics")), dependencies = deps.pids) +:
        survivors.tail.map(sampler) :+ victimSampler
      val info = FaultRun.info(fault.name, s"${victim.address} of ${s.nodes} nodes ${fault.verb} under load: " +
          fault.summary, front.url("/customers"), driver, flags, s.stubLatency, s.customers, ServiceCluster.NodeHeap,
        s"a Pekko Cluster of ${s.nodes} nodes on loopback, the front (${front.address}) loaded; the blocking SOAP " +
          s"client on a work queue of ${s.workQueue} threads per node, SOAP timeout ${s.soapTimeout.toMillis / 1000.0} " +
          "s (shipped)", "lab cluster-faults", nodes.map(_.address), Some(Bound(s.boundWhat, s.bound)))
      progress(f"  ${s.clients} users on ${front.address}'s /customers, bound ${s.bound}%.0f req/s (${s.boundWhat})")
      FaultRun.measure(info, driver, samplers, logs, dir.resolve(fault.name), progress) { record =>
        Thread.sleep(500)
        val after = survivors.map(n => n.address -> retained(n)).toMap
        record.copy(fault = Some(driver.timeline(before(front.address), after(front.address),
          survivors.tail.map(n => NodeRetained(n.address, before(n.address), after(n.address))))))
      }
    finally
      Children.stopAll()
      partition.foreach(_.close())
