package bulkhead.lab.record

/**
 * The undersized pool of `lab faults`: one SOAP mode's service with `slots` calls to the third party at once, `users`
 * closed-loop users on /customers/{id}, and what they got in the counted window `[from, to)` (seconds since the load
 * started; the warm-up before `from` is not counted). The cap is `slots` calls of `stubLatencyMs` each.
 *
 * @param statuses         answers in the window by status (`200`, `503`), and requests without one by why
 *                         (`error:timeout`), as [[bulkhead.lab.record.RequestOutcome]] labels them
 * @param okPerSecond      OK answers a second over the window, each counted by the share of its call to the third
 *                         party inside it (the slots answer in waves: a plain count is off by up to a wave by where
 *                         the window's edges fall); `statuses` has the plain count
 * @param slowestRefusalMs the slowest 503 of the window (a refusal must come well before the SOAP timeout)
 * @param thirdPartyPeak   the most calls the third party had at once (its /metrics, polled every few ms) while this
 *                         run and the `sharedBy - 1` others beside it called it; None if it could not be read
 * @param thirdPartySlots  the slots of every service calling the third party at once (this one's and the others')
 * @param breakerOpenings  the circuit breaker's openings over the service's whole life (its /metrics at the end)
 * @param thirdPartyPeakSecond when the peak was first read, in seconds since the polling began (with the load, within
 *                         milliseconds): in the warm-up (before `from`) or in the counted window
 */
final case class Goodput(mode: String, slots: Int, stubLatencyMs: Double, soapTimeoutMs: Double, users: Int,
    from: Double, to: Double, statuses: Map[String, Int], okPerSecond: Double, okP50Ms: Option[Double],
    refusalP50Ms: Option[Double], slowestRefusalMs: Option[Double], refusedWithoutRetryAfter: Int,
    thirdPartyPeak: Option[Int], thirdPartySlots: Int, sharedBy: Int, breakerOpenings: Option[Double],
    thirdPartyPeakSecond: Option[Double] = None):
  /** Answers a second the slots allow (Little's law: slots / the third party's latency). */
  def cap: Double = slots * 1000.0 / stubLatencyMs
  def ok: Int = statuses.getOrElse("200", 0)
  def refused: Int = statuses.getOrElse("503", 0)
