package bulkhead.lab.faults

import bulkhead.lab.checks.NodeFaultChecks
import bulkhead.lab.load.{ClosedLoopUsers, LoadDriver, UserGroup}
import bulkhead.lab.model.LoadFigures
import bulkhead.lab.process.{Child, ClusterNode, ServiceCluster, Stack}
import bulkhead.lab.record.{FaultTimeline, NodeEvent, NodeKill, NodeRetained, RequestLog}
import bulkhead.lab.sample.Retained

import java.net.URI
import java.nio.file.Path
import java.util.concurrent.ConcurrentLinkedQueue
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*

/**
 * A node fault as a load: the settings' clients as steady closed-loop users on the front's collection
 * (`/customers` -> `/customers/{id}`), `fault` done to the last of `nodes` (the victim) after the baseline, and the
 * victim started again on the same cluster port once it is gone (`restarted` is told of each new process; `paused`
 * of a SIGSTOP and its SIGCONT); the users stop once the recovery is over and the restarted node has had time to
 * rejoin. Every node's exit is watched and recorded, with what the driver did, as the run's node events.
 * [[timeline]] gives what it recorded besides its figures.
 */
final class NodeFaultDriver(fault: NodeFault, s: ClusterFaultSettings, stack: Stack, nodes: Seq[ClusterNode],
    partition: Option[Partition], restarted: ClusterNode => Unit, paused: Boolean => Unit, progress: String => Unit)
    extends LoadDriver:
  private val victim = nodes.last
  @volatile private var ran: Option[FaultRan] = None
  private val events = ConcurrentLinkedQueue[NodeEvent]()

  def concurrency: Int = s.clients
  def measuredSeconds: Double = (s.baseline + s.hold + s.recovery).toMillis / 1000.0
  def describe(url: String): String =
    s"${s.clients} closed-loop keep-alive users on $url/{id}; ${victim.address} ${fault.verb} after " +
      s"${s.baseline.toSeconds} s (${fault.summary}), then at least ${s.recovery.toSeconds} s of recovery from its " +
      s"last start and ${NodeFaultDriver.MinAfterServing} s from its serving HTTP"

  def run(url: String, dir: Path): Either[String, LoadFigures] =
    LoadDriver.requireLoopback(url)
    val log = RequestLog()
    def now = (System.nanoTime() - log.t0Nanos) / 1e9
    def event(node: ClusterNode, what: String): Unit =
      val at = now
      events.add(NodeEvent(at, node.address, what))
      progress(f"  $at%.1f s: ${node.address} $what")
    @volatile var current = victim
    @volatile var watching = true
    // Every node's exit, as the lab sees it: the victim's after a kill, and any node the cluster downed.
    val watcher = Thread(() =>
      var seen = Set.empty[Child]
      while watching do
        (nodes.init :+ current).filter(n => !seen(n.served.child) && !n.served.child.isAlive).foreach { n =>
          seen += n.served.child
          event(n, s"exited ${n.served.child.process.exitValue()}")
        }
        Thread.sleep(100), "lab-node-watcher")
    watcher.setDaemon(true)
    def kill(): Unit =
      event(current, s"SIGKILL (pid ${current.served.child.pid})")
      current.served.child.kill()
    def startAgain(): Unit =
      event(current, NodeFaultChecks.StartingAgain)
      current = ServiceCluster.restart(stack, current)
      restarted(current)
      event(current, s"serving HTTP (pid ${current.served.child.pid})")
    // A node woken or reconnected after being downed leaves by itself (it exits 1): then it is started again.
    def awaitLeaving(): Unit =
      val deadline = System.nanoTime() + NodeFaultDriver.LeaveLimit.toNanos
      while current.served.child.isAlive && System.nanoTime() < deadline do Thread.sleep(100)
      if current.served.child.isAlive then
        event(current, s"still running ${NodeFaultDriver.LeaveLimit.toSeconds} s later: not started again")
      else
        Thread.sleep(200)
        startAgain()
    val users = ClosedLoopUsers.start(UserGroup("steady", s.clients, URI.create(url).getPort,
      FaultRan.ids(url, s.customers)), log)
    watcher.start()
    try
      Thread.sleep(s.baseline.toMillis)
      val injectAt = now
      val clearAt = fault match
        case NodeFault.Killed =>
          kill()
          Thread.sleep(s.hold.toMillis)
          val at = now
          startAgain()
          at
        case NodeFault.Paused =>
          event(current, "SIGSTOP")
          paused(true)
          current.served.child.signal("STOP")
          Thread.sleep(s.hold.toMillis)
          val at = now
          current.served.child.signal("CONT")
          paused(false)
          event(current, "SIGCONT")
          awaitLeaving()
          at
        case NodeFault.Partitioned =>
          val p = partition.getOrElse(throw IllegalStateException("node-partitioned needs a partition"))
          p.cut(nodes.map(_.clusterPort))
          event(current, s"partitioned (its traffic to and from ports ${nodes.map(_.clusterPort).mkString(", ")} dropped)")
          Thread.sleep(s.hold.toMillis)
          val at = now
          p.heal()
          event(current, "healed")
          awaitLeaving()
          at
        case NodeFault.RestartLoop =>
          (1 to NodeFault.Cycles).foldLeft(0.0) { (_, cycle) =>
            if cycle > 1 then Thread.sleep(NodeFault.UpBetweenKills.toMillis)
            kill()
            val at = now
            startAgain()
            at
          }
      val lastStart = events.asScala.filter(_.what == NodeFaultChecks.StartingAgain).lastOption.fold(clearAt)(_.second)
      val serving = now
      // A JVM slow to start still gets time to rejoin and serve before the load stops.
      Thread.sleep((((lastStart + s.recovery.toSeconds).max(serving + NodeFaultDriver.MinAfterServing) - now) * 1000)
        .toLong.max(0))
      val ended = users.stop()
      val endAt = now
      val entries = log.all
      ran = Some(FaultRan(injectAt, clearAt, endAt, entries, ended))
      Right(ClosedLoopUsers.figures(entries, s.clients, 0.0, endAt, describe(url)))
    finally
      watching = false
      if fault == NodeFault.Paused then current.served.child.signal("CONT")
      partition.foreach(p => scala.util.Try(p.heal()))
      users.abandon()

  /**
   * What the run recorded besides its figures, once it ran: the fault (injected) and its end (cleared: the restart,
   * SIGCONT, the heal, the last start of the loop), every request, what the front retained `before` the fault and
   * `after` the run, the same for the `others` that stayed up, and every node event.
   */
  def timeline(before: Retained, after: Retained, others: Seq[NodeRetained]): FaultTimeline =
    FaultRan.timeline(ran, fault.name, ClusterFaultRun.SoapMode, NodeFaultChecks.Designed, before, after)
      .copy(nodeKill = Some(NodeKill(victim.address, others, events.asScala.toSeq.sortBy(_.second))))

object NodeFaultDriver:
  /** Seconds the run goes on once the restarted node serves HTTP: Pekko's join and the Receptionist's gossip. */
  val MinAfterServing = 15.0
  /**
   * How long a woken or reconnected node gets to find it was downed and exit: its failure detector sees the others
   * unreachable at once, and its resolver downs it 5 s later (stable-after), if the others' gossip has not already.
   */
  val LeaveLimit: FiniteDuration = 30.seconds
