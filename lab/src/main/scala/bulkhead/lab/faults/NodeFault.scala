package bulkhead.lab.faults

import bulkhead.lab.checks.NodeFaultChecks

import scala.concurrent.duration.*

/**
 * What `lab cluster-faults` does to one node of a loaded cluster (the victim: the node with the highest address, so
 * that the split-brain resolver's tie-break keeps the front), and how it ends: the victim is started again on the same
 * cluster port once it is gone, and must be routed to again.
 */
enum NodeFault(val name: String, val summary: String):
  /** What it does to the node, in a word (the report's phase). */
  def verb: String = NodeFaultChecks.verb(name)

  /** SIGKILL: the node dies without a word to the cluster; started again after the hold. */
  case Killed extends NodeFault("node-killed", "SIGKILL one node, hold, start it again")
  /**
   * SIGSTOP for longer than the failure detector and the split-brain resolver take (a GC pause, a frozen VM), then
   * SIGCONT: the others down it meanwhile; woken, it finds itself downed (or, alone on its side, downs itself) and
   * exits 1, and is started again.
   */
  case Paused extends NodeFault("node-paused", "SIGSTOP one node past the failure detector, SIGCONT, " +
    "start it again once it has left")
  /**
   * Its cluster traffic dropped both ways (nftables, in the lab's own network namespace) while its HTTP, Redis and
   * SOAP traffic flow: each side sees the other unreachable; the majority downs it, it downs itself, and it is started
   * again once the partition heals.
   */
  case Partitioned extends NodeFault("node-partitioned", "drop one node's cluster traffic both ways " +
    "(nftables), heal, start it again once it has left")
  /** Killed and started again [[NodeFault.Cycles]] times in a row, each start killed once it serves HTTP. */
  case RestartLoop extends NodeFault("restart-loop", s"SIGKILL one node and start it again " +
    s"${NodeFault.Cycles} times in a row, the last start kept")

object NodeFault:
  /** Kills of the restart loop: each start but the last is killed soon after it serves HTTP, while it joins. */
  final val Cycles = 3
  /** How long each start of the restart loop but the last stays up once it serves HTTP: mid-join. */
  val UpBetweenKills: FiniteDuration = 3.seconds

  def named(name: String): Option[NodeFault] = values.find(_.name == name)
