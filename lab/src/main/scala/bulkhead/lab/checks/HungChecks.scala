package bulkhead.lab.checks

import bulkhead.lab.record.{FaultTimeline, HungDependency, RunRecord}

/**
 * The checks of a run whose dependency hung for a long hold, beside every fault's (recovery within 5 s, threads, heap):
 * no call reached the third party or Redis after its caller had been answered, and once the load stopped the service
 * held nothing (no SOAP call in flight or waiting for a slot, no request in the pipeline). Reads the run's
 * [[HungDependency]]; a reading that failed fails its check.
 *
 * A dependency whose process was stopped reads, when it continues, what its sockets took meanwhile: calls written in
 * time that arrive stale, which no client can take back (Linux keeps a reset connection's received bytes readable).
 * Those calls all timed out for their callers (504), so there the third party may get stale up to that many, and not
 * one more: a call the service sent after the third party came back, or held in a queue of its own past its caller's
 * answer, would exceed it. Redis may run stale only the commands in flight when it stopped, one per user (the run's
 * concurrency): a command sent after a timeout told the service that Redis stopped answering would exceed it.
 */
object HungChecks:
  def checks(r: RunRecord): Seq[Check] = r.fault.toSeq.flatMap(t => t.hung.toSeq.flatMap(h =>
    Seq(staleSoap(t, h), staleRedis(t, h, r.info.clients), released(h))))

  def staleSoap(t: FaultTimeline, h: HungDependency): Check =
    (h.staleSoapCalls, h.soapCallsWithDeadline) match
      case (Some(stale), Some(calls)) =>
        val timedOut = t.statuses.getOrElse(504, 0)
        val allowed = if h.frozen then timedOut.toLong else 0L
        Check("no stale call to the third party", stale <= allowed && calls > 0,
          s"$stale of the $calls calls the third party got arrived past their deadline" +
            (if h.frozen then s" (at most the $timedOut that timed out while it was stopped, read when it continued)"
             else "") +
            (if calls == 0 then " (no call carried one: is the service sending X-Request-Deadline?)" else ""))
      case _ => Check("no stale call to the third party", false, "the stub's counters could not be read")

  def staleRedis(t: FaultTimeline, h: HungDependency, users: Int): Check =
    val ok = t.statuses.getOrElse(200, 0)
    h.staleRedisReads(ok) match
      case Some(stale) =>
        val degraded = h.degradedAnswers.getOrElse(0.0).toLong
        val allowed = if h.frozen then users.toLong else 0L
        Check("no stale command to Redis", stale <= allowed,
          s"$stale profile reads run by Redis after their caller had been answered without them ($ok OK answers, " +
            s"$degraded degraded" +
            (if h.frozen then s"; at most the $users in flight when it stopped, one per user" else "") + ")")
      case None => Check("no stale command to Redis", false, "Redis's or the service's counters could not be read")

  def released(h: HungDependency): Check =
    val a = h.after
    val held = Seq("SOAP calls in flight" -> a.soapInFlight, "waiting for a slot" -> a.soapWaiting,
      "requests in the pipeline" -> a.enrichmentInFlight)
    Check("nothing held once the load stopped", held.forall(_._2.contains(0.0)),
      held.map((k, v) => s"$k ${v.fold("unread")(x => f"$x%.0f")}").mkString(", "))
