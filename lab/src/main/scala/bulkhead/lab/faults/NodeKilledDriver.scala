package bulkhead.lab.faults

import bulkhead.lab.diagnose.NodeKilledVerdict
import bulkhead.lab.load.{ClosedLoopUsers, LoadDriver, RequestLog, UserGroup}
import bulkhead.lab.model.LoadFigures
import bulkhead.lab.process.{ClusterNode, ServiceCluster, Stack}
import bulkhead.lab.record.{FaultTimeline, NodeKill, NodeRetained}
import bulkhead.lab.sample.Retained

import java.net.URI
import java.nio.file.Path

/**
 * The node-killed fault as a load: the settings' clients as steady closed-loop users on the front's collection
 * (`/customers` -> `/customers/{id}`), `victim` SIGKILLed after the baseline, held, then started again on the same
 * cluster port (`restarted` is told of its new process), and the users stopped once the recovery is over and the
 * restarted node has had time to rejoin. [[timeline]] gives what it recorded besides its figures.
 */
final class NodeKilledDriver(s: NodeKilledSettings, stack: Stack, victim: ClusterNode,
    restarted: ClusterNode => Unit, progress: String => Unit) extends LoadDriver:
  @volatile private var ran: Option[FaultRan] = None

  def concurrency: Int = s.clients
  def measuredSeconds: Double = (s.baseline + s.hold + s.recovery).toMillis / 1000.0
  def describe(url: String): String =
    s"${s.clients} closed-loop keep-alive users on $url/{id}; ${victim.address} SIGKILLed after " +
      s"${s.baseline.toSeconds} s, started again ${s.hold.toSeconds} s later, then at least ${s.recovery.toSeconds} s " +
      s"of recovery from the restart and ${NodeKilledDriver.MinAfterServing} s from its serving HTTP"

  def run(url: String, dir: Path): Either[String, LoadFigures] =
    LoadDriver.requireLoopback(url)
    val log = RequestLog()
    def now = (System.nanoTime() - log.t0Nanos) / 1e9
    val users = ClosedLoopUsers.start(UserGroup("steady", s.clients, URI.create(url).getPort,
      FaultRan.ids(url, s.customers)), log)
    try
      Thread.sleep(s.baseline.toMillis)
      val killAt = now
      victim.served.child.kill()
      progress(f"  killed ${victim.address} (SIGKILL, pid ${victim.served.child.pid}) at $killAt%.1f s")
      Thread.sleep(s.hold.toMillis)
      val restartAt = now
      progress(f"  starting ${victim.address} again at $restartAt%.1f s")
      restarted(ServiceCluster.restart(stack, victim))
      val serving = now
      progress(f"  ${victim.address} serves HTTP ${serving - restartAt}%.1f s after its start; rejoining")
      // A JVM slow to start still gets time to rejoin and serve before the load stops.
      Thread.sleep((((restartAt + s.recovery.toSeconds).max(serving + NodeKilledDriver.MinAfterServing) - now) * 1000)
        .toLong.max(0))
      val ended = users.stop()
      val endAt = now
      val entries = log.all
      ran = Some(FaultRan(killAt, restartAt, endAt, entries, ended))
      Right(ClosedLoopUsers.figures(entries, s.clients, 0.0, endAt, describe(url)))
    finally users.abandon()

  /**
   * What the run recorded besides its figures, once it ran: the kill (injected) and the restart's launch (cleared),
   * every request, what the front retained `before` the kill and `after` the run, and the same for the `others` that
   * stayed up.
   */
  def timeline(before: Retained, after: Retained, others: Seq[NodeRetained]): FaultTimeline =
    FaultRan.timeline(ran, NodeKilled.Name, NodeKilled.SoapMode, NodeKilledVerdict.Designed, before, after)
      .copy(nodeKill = Some(NodeKill(victim.address, others)))

object NodeKilledDriver:
  /** Seconds the run goes on once the restarted node serves HTTP: Pekko's join and the Receptionist's gossip. */
  val MinAfterServing = 15.0
