package bulkhead.lab.checks

import bulkhead.lab.record.{FaultTimeline, HostileClients, ServiceWatch}

/**
 * What hostile clients may not do to the service, read from a fault run's record (its [[ServiceWatch]] and its
 * [[HostileClients]]): the service keeps answering /health within [[HealthLimitMs]] from the fault's injection to the
 * run's end, its log grows by less than [[LogBytesPerRequest]] a hostile request or [[LogBytesAnyway]] in all (their
 * mistakes never cost a line each), and the hostile clients get only the answers the design gives them. Heap and threads back to their level and
 * nothing lost for the steady users beside them are [[FaultChecks]]'s checks, as for every fault. A run without
 * hostile clients gets none of these (its watch is a figure of the report).
 */
object HostileChecks:
  /** The promise to an operator's probe: /health answered within a second whatever the clients do. */
  val HealthLimitMs = 1000.0
  /** Log bytes a hostile request may cost on average: less than one, i.e. never a line each. */
  val LogBytesPerRequest = 1.0
  /**
   * Or in all, whatever the count: a dozen lines. Clients' mistakes are logged at most a line a second (with a count),
   * so a slow flood may cost more than a byte a request and still be bounded.
   */
  val LogBytesAnyway = 4096L

  def checks(t: FaultTimeline): Seq[Check] =
    if t.hostile.isEmpty then Nil
    else
      val watch = t.watch.map(w => Seq(health(t, w), log(w, t.hostile))).getOrElse(Seq(
        Check("service watched (/health, log)", false, "the run recorded no watch of the service")))
      watch :+ designed(t.hostile)

  /**
   * Every probe from the fault on answered 200, the slowest within the limit. A probe that overlapped a pause the lab
   * itself put on the service (its full GC to read the heap held) must be answered too, but its time is the lab's,
   * not the service's: it is said apart and not held to the limit.
   */
  def health(t: FaultTimeline, w: ServiceWatch): Check =
    val during = w.seconds.filter(s => s.second >= t.injectAt.toInt && s.healthProbes > 0)
    val probes = during.map(_.healthProbes).sum
    val ok = during.map(_.healthOk).sum
    val worst = w.healthWorstMs(t.injectAt)
    val paused = during.map(_.labPausedProbes).sum
    val pausedText = if paused == 0 then "" else
      s"; $paused overlapped the lab's own pause (${w.labPauses.map(_.what).distinct.mkString(", ")}), the slowest " +
        s"of them in ${w.labPausedWorstMs(t.injectAt).fold("-")(ms)}, left out of the slowest"
    Check(f"/health within ${HealthLimitMs / 1000}%.0f s from the fault to the run's end",
      probes > 0 && ok == probes && worst.forall(_ <= HealthLimitMs),
      s"$ok of $probes probes answered 200, the slowest in ${worst.fold("-")(ms)}$pausedText; before the fault the " +
        s"slowest ${w.healthWorstMs(0, t.injectAt).fold("-")(ms)}")

  def log(w: ServiceWatch, hostile: Seq[HostileClients]): Check =
    val requests = hostile.map(_.requests).sum
    val perRequest = if requests == 0 then Double.NaN else w.logBytes.toDouble / requests
    Check(f"log bounded (under $LogBytesPerRequest%.0f byte a hostile request, or $LogBytesAnyway%,d bytes in all)",
      requests > 0 && (perRequest < LogBytesPerRequest || w.logBytes <= LogBytesAnyway),
      f"the service's log grew by ${w.logBytes}%,d bytes over the run for $requests%,d hostile requests" +
        (if requests > 0 then f" ($perRequest%.3f bytes each)" else ""))

  def designed(hostile: Seq[HostileClients]): Check =
    val text = hostile.map { h =>
      val other = h.undesigned
      val late = h.late.filter(_.outcomes.nonEmpty).fold("")(l =>
        f" (${l.outcomes.values.sum}%,d lasted past ${l.reason}, ${l.pastMs / 1000}%.0f s: " +
          s"${l.outcomes.toSeq.sortBy(_._1.label).map((o, n) => f"${o.word}: $n%,d").mkString(", ")}; " +
          s"designed for them: ${(h.designed ++ l.designed).toSeq.sorted.mkString(", ")})")
      s"${h.group}: ${HostileChecks.outcomes(h)}$late" +
        (if other.isEmpty then "" else s"; NOT designed: ${other.toSeq.sorted.mkString(", ")}")
    }
    Check("hostile clients get designed answers only", hostile.forall(_.undesigned.isEmpty), text.mkString("; "))

  /** A hostile group's requests by outcome, statuses first (`200: 1,800, 400: 200, abandoned: 3`). */
  def outcomes(h: HostileClients): String =
    if h.outcomes.isEmpty then "no request recorded"
    else h.outcomes.toSeq.sortBy((o, _) => (o.status.isEmpty, o.label)).map((o, n) => f"${o.word}: $n%,d")
      .mkString(", ")

  private def ms(v: Double) = f"$v%.0f ms"
