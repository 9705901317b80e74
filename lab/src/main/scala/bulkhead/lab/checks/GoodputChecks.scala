package bulkhead.lab.checks

import bulkhead.lab.record.Goodput

/**
 * Is a recorded undersized pool correct? Above its cap the service keeps serving it and refuses the rest quickly:
 * answers at [[CapShare]] of the cap or better, only 200 and 503 (every request answered), every 503 with
 * Retry-After and faster than the SOAP timeout (a wait for a slot, never a call that timed out), the third party never
 * given more calls than its callers' slots, the circuit breaker never opened (a refusal for want of a slot is not the
 * third party's failure). Pure: reads the run's [[Goodput]].
 */
object GoodputChecks:
  /** The share of the cap (slots / the third party's latency) the service must answer above it. */
  val CapShare = 0.9

  def checks(g: Goodput): Seq[Check] =
    val other = g.statuses.filterNot((s, _) => s == "200" || s == "503")
    Seq(
      Check(s"answers at ${CapShare} of the cap or better", g.okPerSecond >= CapShare * g.cap,
        f"${g.okPerSecond}%.2f answers/s of the cap's ${g.cap}%.0f (${g.okPerSecond / g.cap}%.2f; ${g.ok} ended in " +
          f"the ${g.to - g.from}%.1f s counted), ${g.slots} slots, third party ${g.stubLatencyMs}%.0f ms"),
      Check("the rest refused: only 200 and 503, every request answered", other.isEmpty && g.refused > 0,
        s"${g.ok} x 200, ${g.refused} x 503" + (if other.isEmpty then "" else
          other.toSeq.sorted.map((s, n) => s"$s: $n").mkString("; other: ", ", ", ""))),
      Check("every 503 carries Retry-After", g.refusedWithoutRetryAfter == 0,
        if g.refused == 0 then "no 503" else s"${g.refused - g.refusedWithoutRetryAfter} of ${g.refused} with it"),
      Check("refusals faster than the SOAP timeout", g.slowestRefusalMs.exists(_ < g.soapTimeoutMs),
        s"slowest ${OverloadChecks.ms(g.slowestRefusalMs, 0)} ms, p50 ${OverloadChecks.ms(g.refusalP50Ms, 0)} ms; " +
          f"SOAP timeout ${g.soapTimeoutMs}%.0f ms"),
      // The stub counts a call out once its answer is on its way; the client frees the slot when it has read it, so
      // on a busy machine each service's next call can reach the stub just before: one over per service at most.
      Check("the third party never above its callers' slots", g.thirdPartyPeak.exists(_ <= g.thirdPartySlots +
        g.sharedBy), g.thirdPartyPeak.fold("not read")(p => s"peak $p calls at once" + (if g.sharedBy > 1 then
          s", shared by ${g.sharedBy} services of ${g.thirdPartySlots} slots in all" else s" of ${g.thirdPartySlots} " +
          "slots") + g.thirdPartyPeakSecond.fold("")(t => f", first read at second $t%.1f" +
          (if t < g.from then f" (in the warm-up, before second ${g.from}%.0f)" else "")))),
      Check("circuit breaker never opened", g.breakerOpenings.contains(0.0),
        g.breakerOpenings.fold("not read")(n => f"$n%.0f openings over the service's life")))
