package bulkhead.lab.checks

import bulkhead.lab.record.{Overload, OverloadStep}

/**
 * Is a recorded overload ramp correct? Shedding above the in-flight limit only, at once, with Retry-After; admitted
 * requests near the third party's latency; /hello and /health answering throughout. Pure: reads the ramp's steps.
 */
object OverloadChecks:
  def checks(o: Overload): Seq[Check] =
    val steps = o.steps
    val below = steps.filter(_.factor < 1.0)
    val above = steps.filter(_.factor >= 1.5)
    def each(in: Seq[OverloadStep])(f: OverloadStep => String) = in.map(s => s"${s.factor}x: ${f(s)}").mkString(", ")
    Seq(
      Check("no shedding below the limit", below.forall(_.shedPerSecond == 0),
        each(below)(s => f"${s.shedPerSecond}%.0f 503/s")),
      Check("503 above the limit", above.forall(_.shedPerSecond > 0),
        each(above)(s => f"${s.shedPerSecond}%.0f 503/s")),
      Check("every 503 carries Retry-After", steps.forall(_.shedWithoutRetryAfter == 0),
        s"${steps.map(_.shedWithoutRetryAfter).sum} without"),
      Check("503 at once (p50 below a tenth of the third party's latency)",
        above.forall(_.shedP50Ms.exists(_ < o.stubLatencyMs / 10)), each(above)(s => s"${ms(s.shedP50Ms, 1)} ms")),
      Check("admitted requests near the third party's latency (p50 below 2x)",
        steps.forall(_.okP50Ms.exists(_ < 2 * o.stubLatencyMs)),
        each(steps)(s => s"${ms(s.okP50Ms, 0)} ms") + f" (third party ${o.stubLatencyMs}%.0f ms)"),
      Check("only 200 and 503, every request answered",
        steps.forall(s => s.otherStatuses.isEmpty && s.unanswered == 0),
        steps.map(s => s"${s.factor}x: other ${s.otherStatuses}, unanswered ${s.unanswered}").mkString("; ")),
      Check("/hello and /health answered throughout", steps.forall(_.probesFailed == 0),
        each(steps)(s => s"/hello max ${ms(s.helloMaxMs, 0)} ms, /health max ${ms(s.healthMaxMs, 0)} ms")))

  /** A latency with `digits` decimals, `-` when there was none. */
  def ms(v: Option[Double], digits: Int): String = v.fold("-")(d => s"%.${digits}f".format(d))
