package bulkhead.lab.faults

/**
 * Is a recorded node-killed run correct? Every request answered once with a designed status (200; 504 for a lookup
 * the dead node held, at the pipeline's ask timeout; 503 with Retry-After when shedding), throughput at (N-1)/N of
 * the bound within 10 s of the kill once the router has dropped the dead node, back to N/N within 20 s of the
 * restart once the router lists it again, and no thread or heap growth on the nodes that stayed up. Pure: tested on
 * recorded runs.
 */
object NodeKilledVerdict:
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

  def checks(r: NodeKilledRecord): Seq[Check] =
    Seq(FaultVerdict.answered(r.run, Designed), FaultVerdict.designed(r.run, Designed), FaultVerdict.retryAfter(r.run),
      degraded(r), restored(r)) ++ r.survivors.flatMap(s => resources(r, s))

  def passed(r: NodeKilledRecord): Boolean = checks(r).forall(_.passed)

  /** The second from which the front's router no longer listed the killed node's routees, if it stopped. */
  def droppedAt(r: NodeKilledRecord): Option[Int] =
    r.cluster.find(c => c.second >= r.killAt && c.scraped && c.killedRoutees.forall(_ <= 0)).map(_.second)

  /** The first second after the restart at which the front listed the restarted node's routees and N members up. */
  def rejoinedAt(r: NodeKilledRecord): Option[Int] =
    r.cluster.find(c => c.second >= r.restartAt && c.killedRoutees.exists(_ > 0) &&
      c.membersUp.contains(r.nodes.size.toDouble)).map(_.second)

  /**
   * The end (seconds into the run) of the first window of [[WindowSeconds]] starting at `from` or later whose OK
   * answers come at `perSecond` or more.
   */
  def firstWindow(r: NodeKilledRecord, from: Double, perSecond: Double): Option[Double] =
    val ok = r.run.okPerTenth
    val tenths = WindowSeconds * 10
    ((from * 10).ceil.toInt + tenths to ok.size)
      .find(end => ok.slice(end - tenths, end).sum >= perSecond * WindowSeconds).map(_ / 10.0)

  /** Median OK answers per second before the kill (the first second, the users' ramp, left out). */
  def baseline(r: NodeKilledRecord): Double = FaultVerdict.baseline(r.run)

  def degraded(r: NodeKilledRecord): Check =
    val n = r.nodes.size
    val target = FaultVerdict.RecoveredShare * r.bound * (n - 1) / n
    val name = f"throughput at ${n - 1}/$n of the bound within ${DegradedWithinSeconds}%.0f s of the kill"
    droppedAt(r) match
      case None => Check(name, false, s"the front's router still listed ${r.killed}'s routees at the end")
      case Some(dropped) =>
        val reached = firstWindow(r, dropped.toDouble, target).filter(_ <= r.restartAt)
        val share = f"${FaultVerdict.RecoveredShare * 100}%.0f %% of ${n - 1}/$n x ${r.bound}%.0f"
        val detail = f"router dropped ${r.killed} ${dropped - r.killAt}%.1f s after the kill; " + reached.fold(
          f"never $target%.0f OK/s before the restart")(t =>
          f"$target%.0f OK/s over $WindowSeconds s ($share) reached ${t - r.killAt}%.1f s after it")
        Check(name, reached.exists(_ - r.killAt <= DegradedWithinSeconds), detail)

  def restored(r: NodeKilledRecord): Check =
    val target = FaultVerdict.RecoveredShare * r.bound
    val n = r.nodes.size
    val name = f"throughput back to $n/$n within ${RestoredWithinSeconds}%.0f s of the restart"
    // From the moment the front routes to the restarted node again: before, only N-1 nodes serve.
    val rejoined = rejoinedAt(r)
    val reached = rejoined.flatMap(s => firstWindow(r, s.toDouble, target))
    val listed = rejoined.fold("the front never listed it again")(s =>
      f"listed again by the front's router ${s - r.restartAt}%.1f s after the restart")
    val share = f"${FaultVerdict.RecoveredShare * 100}%.0f %% of ${r.bound}%.0f"
    Check(name, reached.exists(_ - r.restartAt <= RestoredWithinSeconds), s"${r.killed} $listed; " + reached.fold(
      f"never $target%.0f OK/s after that")(t =>
      f"$target%.0f OK/s over $WindowSeconds s ($share) reached ${t - r.restartAt}%.1f s after the restart"))

  def resources(r: NodeKilledRecord, s: SurvivorResources): Seq[Check] =
    val one = r.run.copy(before = s.before, after = s.after)
    Seq(FaultVerdict.threads(one), FaultVerdict.heap(one, s.before)).map(c => c.copy(name = s"${c.name} on ${s.node}"))
