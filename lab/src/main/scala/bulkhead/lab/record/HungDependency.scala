package bulkhead.lab.record

/**
 * The service's and its dependencies' counters at one moment of a hung-dependency run, each None when its reading
 * failed: the third party's calls that carried a deadline and those that arrived past it (stale: their caller had
 * already been answered), Redis's HGETALLs run, the service's answers degraded so far (loyalty unavailable), and what
 * the service holds now: SOAP calls in flight (those waiting for a slot included), waiting for a slot, and requests in
 * the enrichment pipeline.
 */
final case class DependencyReading(stubCallsWithDeadline: Option[Long], stubStaleCalls: Option[Long],
    redisProfileReads: Option[Long], degraded: Option[Double], soapInFlight: Option[Double],
    soapWaiting: Option[Double], enrichmentInFlight: Option[Double])

/**
 * A dependency that hangs for a long hold (`lab faults`' hung cases): the readings before the load started and once
 * it stopped (every user answered), and the hold it was hung for, in seconds. Between them, the calls the dependencies
 * got that were stale: the stub's by their deadline header; Redis's as the profile reads it ran beyond the ones the
 * service used (`okAnswers`, every OK answer read one profile, minus those it answered degraded). `frozen`: the
 * dependency's process itself was stopped (SIGSTOP), so the calls written to its sockets meanwhile were read only
 * when it continued, past their deadline: stale on arrival, though sent in time.
 */
final case class HungDependency(holdSeconds: Double, frozen: Boolean, before: DependencyReading,
    after: DependencyReading):
  private def delta[A](f: DependencyReading => Option[A])(using n: Numeric[A]): Option[A] =
    for b <- f(before); a <- f(after) yield n.minus(a, b)

  /** SOAP calls that reached the third party past their deadline during the run. */
  def staleSoapCalls: Option[Long] = delta(_.stubStaleCalls)
  /** SOAP calls that reached the third party with a deadline during the run. */
  def soapCallsWithDeadline: Option[Long] = delta(_.stubCallsWithDeadline)
  /** Answers degraded during the run. */
  def degradedAnswers: Option[Double] = delta(_.degraded)

  /** Profile reads Redis ran whose answer the service no longer used (its caller had been answered degraded). */
  def staleRedisReads(okAnswers: Int): Option[Long] =
    for reads <- delta(_.redisProfileReads); degraded <- degradedAnswers yield reads - (okAnswers - degraded.toLong)
