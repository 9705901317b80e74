package bulkhead.lab.diagnose

import bulkhead.lab.record.{FaultTimeline, HungDependency}

/**
 * The checks of a run whose dependency hung for a long hold, beside every fault's (recovery within 5 s, threads, heap):
 * no call reached the third party or Redis after its caller had been answered, and once the load stopped the service
 * held nothing (no SOAP call in flight or waiting for a slot, no request in the pipeline). Reads the run's
 * [[HungDependency]]; a reading that failed fails its check.
 */
object HungVerdict:
  def checks(t: FaultTimeline): Seq[Check] = t.hung.toSeq.flatMap(h => Seq(staleSoap(h), staleRedis(t, h), released(h)))

  def staleSoap(h: HungDependency): Check =
    (h.staleSoapCalls, h.soapCallsWithDeadline) match
      case (Some(stale), Some(calls)) =>
        Check("no stale call to the third party", stale == 0 && calls > 0,
          s"$stale of the $calls calls the third party got arrived past their deadline" +
            (if calls == 0 then " (no call carried one: is the service sending X-Request-Deadline?)" else ""))
      case _ => Check("no stale call to the third party", false, "the stub's counters could not be read")

  def staleRedis(t: FaultTimeline, h: HungDependency): Check =
    val ok = t.statuses.getOrElse(200, 0)
    h.staleRedisReads(ok) match
      case Some(stale) => Check("no stale command to Redis", stale <= 0,
          s"$stale profile reads run by Redis after their caller had been answered without them (${ok} OK answers, " +
            f"${h.degradedAnswers.getOrElse(0.0)}%.0f degraded)")
      case None => Check("no stale command to Redis", false, "Redis's or the service's counters could not be read")

  def released(h: HungDependency): Check =
    val a = h.after
    val held = Seq("SOAP calls in flight" -> a.soapInFlight, "waiting for a slot" -> a.soapWaiting,
      "requests in the pipeline" -> a.enrichmentInFlight)
    Check("nothing held once the load stopped", held.forall(_._2.contains(0.0)),
      held.map((k, v) => s"$k ${v.fold("unread")(x => f"$x%.0f")}").mkString(", "))
