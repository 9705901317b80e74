package bulkhead.lab.process

import bulkhead.lab.model.MetricsReading

import scala.concurrent.duration.*
import scala.concurrent.{Await, ExecutionContext, Future, blocking}
import scala.util.{Failure, Success, Try}

/**
 * A service node of a cluster the lab started: its process and HTTP port, its cluster address (`host:port`, the
 * label of its routees in every node's /metrics) and the flags it was started with (to start it again).
 */
final case class ClusterNode(name: String, served: Served, address: String, flags: Seq[String]):
  /** The node's Artery port. */
  def clusterPort: Int = address.drop(address.lastIndexOf(':') + 1).toInt
  def url(path: String): String = served.url(path)

/**
 * N service JVMs on loopback joined as one Pekko Cluster, every one serving HTTP. Each gets a free Artery port and
 * the same seed list, every node's address lowest port first: any node can then restart and rejoin, and the front
 * (node 1, the one the lab loads) holds the lowest address, which keeps it up when the split-brain resolver breaks a
 * tie. Joined means: every node sees N members up, and the front's router lists, for each node, the routees that
 * node lists for itself.
 */
object ServiceCluster:
  /** Every node's address, Artery's and HTTP's: loopback, the lab's only network. */
  private val Host = "127.0.0.1"

  /**
   * Joining took 10-19 s here after the JVMs started (2 shared cores, Pekko's 1 s gossip, the first seed waiting 5 s
   * for the others); the bound leaves room for a third node and a machine busy with other work.
   */
  val JoinLimit: FiniteDuration = 90.seconds

  /**
   * Each node's heap: the one `./bulkhead serve` gives the shipped settings (a smaller one is refused at start). A
   * ceiling, not what a node uses: a node holds little (the work queue's threads' stacks), and G1 grows the heap only
   * as it needs, so several nodes share this machine.
   */
  val NodeHeap: String = Stack.ServeHeap

  /** The flags that make node `i` (0-based) of `ports` a member: its own port and every node as a seed. */
  def clusterFlags(ports: Seq[Int], i: Int): Seq[String] =
    Seq("--cluster-host", Host, "--cluster-port", ports(i).toString) ++
      ports.sorted.flatMap(p => Seq("--seed-node", s"$Host:$p"))

  /**
   * Starts `n` nodes with `flags` each (plus their cluster flags), all at once (the first seed then finds the others
   * up instead of waiting 5 s for them, and JVMs starting together share the cores' idle moments), and waits until
   * they are joined. A node that does not start stops the others. `prefixOf` gives node `i`'s command a prefix (the
   * partition's cgroup).
   */
  def start(stack: Stack, n: Int, flags: Seq[String], progress: String => Unit,
      limit: FiniteDuration = JoinLimit, prefixOf: Int => Seq[String] = _ => Nil): Seq[ClusterNode] =
    require(n >= 2, s"a cluster needs at least 2 nodes, was $n")
    val ports = Iterator.continually(Stack.freePort()).distinct.take(n).toSeq.sorted
    progress(s"  starting $n service nodes, cluster ports ${ports.mkString(", ")}")
    val started = System.nanoTime()
    val starting = ports.indices.map { i =>
      val own = flags ++ clusterFlags(ports, i)
      val name = s"node-${i + 1}"
      // blocking: the global pool has a thread per core; each start waits on its JVM, so each gets a thread.
      Future(blocking(ClusterNode(name, stack.service(own, heap = NodeHeap, name = name, prefix = prefixOf(i)),
        s"$Host:${ports(i)}", own)))(
        ExecutionContext.global)
    }
    val outcomes = starting.map(f => Try(Await.result(f, Duration.Inf)))
    val nodes = outcomes.collect { case Success(node) => node }
    try
      outcomes.collectFirst { case Failure(e) => throw e }
      awaitJoined(nodes, limit)
      progress(f"  joined: ${nodes.size} members up, the front routes to every node, ${
        (System.nanoTime() - started) / 1e9}%.1f s after the JVMs started")
      nodes
    catch
      case e: Exception =>
        nodes.foreach(_.served.child.stop())
        throw e

  /** Starts a stopped or killed node again, same flags and cluster port (it rejoins through the seeds). */
  def restart(stack: Stack, node: ClusterNode): ClusterNode =
    node.copy(served = stack.service(node.flags, heap = NodeHeap, name = node.name))

  /** Waits until `nodes` are joined (see [[missing]]); else throws, saying what was missing and where the logs are. */
  def awaitJoined(nodes: Seq[ClusterNode], limit: FiniteDuration): Unit =
    val deadline = System.nanoTime() + limit.toNanos
    var lack = missing(nodes.map(_.address), scrapes(nodes))
    while lack.isDefined do
      nodes.find(!_.served.child.isAlive).foreach(dead =>
        throw IllegalStateException(
          s"${dead.name} (${dead.address}) exited while joining; see ${dead.served.child.log}:\n" +
            dead.served.child.logTail))
      if System.nanoTime() > deadline then
        throw IllegalStateException(s"the ${nodes.size} nodes did not join within ${limit.toSeconds} s: " +
          s"${lack.get}; see ${nodes.map(n => s"${n.served.child.log}:\n${n.served.child.logTail}").mkString("\n")}")
      Thread.sleep(250)
      lack = missing(nodes.map(_.address), scrapes(nodes))

  private def scrapes(nodes: Seq[ClusterNode]): Seq[Option[MetricsReading]] =
    nodes.map(n => Stack.get(n.url("/metrics"), 2.seconds).toOption.map(MetricsReading.parse))

  /**
   * What keeps a cluster from being joined, or None: `addresses` are the nodes' cluster addresses, the front first,
   * `readings` their /metrics in the same order (None: no answer). Every node must see all of them up and none
   * unreachable; the front must list, for each node, as many routees as that node lists for itself (more than none).
   */
  def missing(addresses: Seq[String], readings: Seq[Option[MetricsReading]]): Option[String] =
    val n = addresses.size
    val notUp = addresses.zip(readings).collect {
      case (a, None) => s"$a: no /metrics"
      case (a, Some(m)) if !m.clusterMembersUp.contains(n.toDouble) =>
        s"$a sees ${m.clusterMembersUp.fold("no")(u => f"$u%.0f")} members up of $n"
      // A member stays up while it is unreachable, until the split-brain resolver downs it.
      case (a, Some(m)) if m.clusterUnreachable.exists(_ > 0) =>
        f"$a sees ${m.clusterUnreachable.get}%.0f members unreachable"
    }
    lazy val front = readings.head.get
    lazy val unrouted = addresses.zip(readings).collect {
      case (a, Some(m)) if m.clusterRoutees.get(a).forall(_ <= 0) ||
          front.clusterRoutees.get(a) != m.clusterRoutees.get(a) =>
        s"the front lists ${front.clusterRoutees.get(a).fold("no")(r => f"$r%.0f")} routees of $a, which lists " +
          s"${m.clusterRoutees.get(a).fold("none")(r => f"$r%.0f")} of its own"
    }
    if notUp.nonEmpty then Some(notUp.mkString("; "))
    else Option.when(unrouted.nonEmpty)(unrouted.mkString("; "))

