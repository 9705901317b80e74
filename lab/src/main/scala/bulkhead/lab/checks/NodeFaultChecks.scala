package bulkhead.lab.checks

import bulkhead.lab.record.{BreakerExpectation, FaultExpectation, FaultTimeline, NodeKill, NodeRetained, RunRecord}

/**
 * One second of a cluster as its front saw it (its sample's /metrics): members up, members unreachable, and the
 * routees its router lists on the killed node (None: none listed). All None when the front's /metrics did not answer.
 */
final case class ClusterSecond(second: Int, membersUp: Option[Double], unreachable: Option[Double],
    killedRoutees: Option[Double]):
  def scraped: Boolean = membersUp.isDefined

/**
 * Is a recorded node-fault run correct (a node killed, paused, partitioned or restarted in a loop)? Every request
 * answered once with a designed status (200; 504 for a lookup the faulted node held, at the pipeline's ask timeout;
 * 503 with Retry-After when shedding), throughput at (N-1)/N of the bound within 10 s of the fault once the router has
 * dropped the faulted node, back to N/N within 20 s of its last start once the router lists it again, no node that
 * stayed up leaving the cluster (downed, or downing itself), and no thread or heap growth on them. Pure: tested on
 * recorded runs. The run's nodes are its [[bulkhead.lab.record.RunInfo]]'s (the front first), its bound the info's
 * declared bound, the fault the timeline's injection, and the restart the node's last start (its node events; a run
 * recorded without them: the timeline's clearing).
 */
object NodeFaultChecks:
  /** The statuses the design gives while a node dies, besides 200; the breaker is the third party's, untouched. */
  val Designed: FaultExpectation = FaultExpectation(Set(503, 504), BreakerExpectation.StaysClosed)
  val DegradedWithinSeconds = 10.0
  val RestoredWithinSeconds = 20.0
  /**
   * Throughput is read over windows of this many seconds. A blocking call holds its thread for the whole 1 s, so the
   * answers come in waves and single seconds swing by +-20 % (two nodes of 25 threads gave 60 OK in one second and
   * 37 in the next): 3 s smooth that out while still placing the recovery to within a few seconds.
   */
  val WindowSeconds = 3

  def checks(r: RunRecord): Seq[Check] =
    val t = FaultChecks.timeline(r)
    Seq(FaultChecks.answered(t), FaultChecks.designed(t, t.expect), FaultChecks.retryAfter(t), degraded(r),
      restored(r), stayed(r)) ++ survivors(r).flatMap(resources)

  def passed(r: RunRecord): Boolean = checks(r).forall(_.passed)

  /** The node faulted and the nodes that stayed up; a record of another run is refused. */
  def kill(r: RunRecord): NodeKill =
    FaultChecks.timeline(r).nodeKill.getOrElse(throw IllegalArgumentException(s"${r.info.name} faulted no node"))

  /** When the fault began (the first kill, the SIGSTOP, the partition). */
  def killAt(r: RunRecord): Double = FaultChecks.timeline(r).injectAt
  /** When the faulted node was last started again. */
  def restartAt(r: RunRecord): Double =
    kill(r).events.filter(e => e.node == kill(r).killed && e.what == StartingAgain).lastOption
      .fold(FaultChecks.timeline(r).clearAt)(_.second)
  /** When the fault ended: the restart, the SIGCONT, the heal, the restart loop's last kill. */
  def clearAt(r: RunRecord): Double = FaultChecks.timeline(r).clearAt

  /** What each node fault does to its node, by the fault's name, in a word. */
  val Verbs: Map[String, String] = Map("node-killed" -> "killed", "node-paused" -> "paused",
    "node-partitioned" -> "partitioned", "restart-loop" -> "flapping")
  def verb(fault: String): String = Verbs.getOrElse(fault, "faulted")

  /** The node event that marks a start of the faulted node. */
  val StartingAgain = "starting again"
  /** The cluster's bound (req/s), which the run declared. */
  def bound(r: RunRecord): Double = r.info.declaredBound.fold(0.0)(_.perSecond)

  /** The nodes that stayed up, the front first, with what each retained. */
  def survivors(r: RunRecord): Seq[NodeRetained] =
    val t = FaultChecks.timeline(r)
    NodeRetained(r.info.nodes.headOption.getOrElse(r.info.target), t.before, t.after) +: kill(r).others

  /** The cluster second by second as the front saw it, from its samples. */
  def cluster(r: RunRecord): Seq[ClusterSecond] =
    val killed = kill(r).killed
    FaultTimeline.bySecond(r.samples).toSeq.sortBy(_._1).map { (second, s) =>
      val m = s.metrics
      ClusterSecond(second, m.flatMap(_.clusterMembersUp), m.flatMap(_.clusterUnreachable),
        m.flatMap(_.clusterRoutees.get(killed)))
    }

  /** The second from which the front's router no longer listed the killed node's routees, if it stopped. */
  def droppedAt(r: RunRecord): Option[Int] =
    cluster(r).find(c => c.second >= killAt(r) && c.scraped && c.killedRoutees.forall(_ <= 0)).map(_.second)

  /**
   * The first second after the restart at which the front listed the restarted node's routees and N members up, once
   * it had dropped them since the node's last death: a node killed again right after a start (the restart loop) stays
   * listed, its dead incarnation's routees, until it is seen unreachable.
   */
  def rejoinedAt(r: RunRecord): Option[Int] =
    // The kill, or the exit the lab saw (a downed node's), whichever is logged before the start.
    val lastDeath = kill(r).events.filter(e => e.node == kill(r).killed && e.second <= restartAt(r) &&
      (e.what.startsWith("exited") || e.what.startsWith("SIGKILL"))).lastOption.fold(killAt(r))(_.second)
    val seconds = cluster(r).filter(_.second >= lastDeath.toInt)
    val dropped = seconds.find(c => c.scraped && c.killedRoutees.forall(_ <= 0)).map(_.second)
    dropped.flatMap(d => seconds.find(c => c.second > d && c.second >= restartAt(r) &&
      c.killedRoutees.exists(_ > 0) && c.membersUp.contains(r.info.nodes.size.toDouble)).map(_.second))

  /**
   * The end (seconds into the run) of the first window of [[WindowSeconds]] starting at `from` or later whose OK
   * answers come at `perSecond` or more.
   */
  def firstWindow(r: RunRecord, from: Double, perSecond: Double): Option[Double] =
    val ok = FaultChecks.timeline(r).okPerTenth
    val tenths = WindowSeconds * 10
    ((from * 10).ceil.toInt + tenths to ok.size)
      .find(end => ok.slice(end - tenths, end).sum >= perSecond * WindowSeconds).map(_ / 10.0)

  /** Median OK answers per second before the kill (the first second, the users' ramp, left out). */
  def baseline(r: RunRecord): Double = FaultChecks.baseline(FaultChecks.timeline(r))

  def degraded(r: RunRecord): Check =
    val n = r.info.nodes.size
    val killed = kill(r).killed
    val target = Recovery.RecoveredShare * bound(r) * (n - 1) / n
    val name = f"throughput at ${n - 1}/$n of the bound within ${DegradedWithinSeconds}%.0f s of the fault"
    droppedAt(r) match
      case None => Check(name, false, s"the front's router still listed $killed's routees at the end")
      case Some(dropped) =>
        val reached = firstWindow(r, dropped.toDouble, target).filter(_ <= restartAt(r))
        val share = f"${Recovery.RecoveredShare * 100}%.0f %% of ${n - 1}/$n x ${bound(r)}%.0f"
        val detail = f"router dropped $killed ${dropped - killAt(r)}%.1f s after the fault; " + reached.fold(
          f"never $target%.0f OK/s before the restart")(t =>
          f"$target%.0f OK/s over $WindowSeconds s ($share) reached ${t - killAt(r)}%.1f s after it")
        Check(name, reached.exists(_ - killAt(r) <= DegradedWithinSeconds), detail)

  def restored(r: RunRecord): Check =
    val target = Recovery.RecoveredShare * bound(r)
    val n = r.info.nodes.size
    val name = f"throughput back to $n/$n within ${RestoredWithinSeconds}%.0f s of the restart"
    // From the moment the front routes to the restarted node again: before, only N-1 nodes serve.
    val rejoined = rejoinedAt(r)
    val reached = rejoined.flatMap(s => firstWindow(r, s.toDouble, target))
    val listed = rejoined.fold("the front never listed it again")(s =>
      f"listed again by the front's router ${s - restartAt(r)}%.1f s after the restart")
    val share = f"${Recovery.RecoveredShare * 100}%.0f %% of ${bound(r)}%.0f"
    Check(name, reached.exists(_ - restartAt(r) <= RestoredWithinSeconds), s"${kill(r).killed} $listed; " +
      reached.fold(f"never $target%.0f OK/s after that")(t =>
        f"$target%.0f OK/s over $WindowSeconds s ($share) reached ${t - restartAt(r)}%.1f s after the restart"))

  /**
   * No node but the faulted one exited: the resolver downed none of them, none downed itself (a node that leaves the
   * cluster exits 1), and the lab killed none.
   */
  def stayed(r: RunRecord): Check =
    val killed = kill(r).killed
    val exits = kill(r).events.filter(e => e.node != killed && e.what.startsWith("exited"))
    val faulted = kill(r).events.filter(e => e.node == killed && e.what.startsWith("exited"))
      .map(e => f"${e.what} at ${e.second}%.1f s").mkString(", ")
    Check("no node that stayed up left the cluster", exits.isEmpty,
      if exits.isEmpty then s"${survivors(r).size} nodes up throughout; $killed " +
        (if faulted.isEmpty then "never exited" else s"exited: $faulted")
      else exits.map(e => f"${e.node} ${e.what} at ${e.second}%.1f s").mkString(", "))

  def resources(s: NodeRetained): Seq[Check] =
    Seq(FaultChecks.threads(s.before, s.after), FaultChecks.heap(s.before, s.after))
      .map(c => c.copy(name = s"${c.name} on ${s.node}"))
