package bulkhead.lab.record

/** What the circuit breaker must do during a fault. */
enum BreakerExpectation:
  /** Opens while the fault is held and is closed again by the end of the run. */
  case Opens
  /** Never opens (e.g. failures are not consecutive, or the fault is not the third party's). */
  case StaysClosed

/**
 * What a fault run may look like and still be correct, recorded with the run so that its verdict reads the record
 * alone.
 *
 * @param designed statuses the design gives for this fault, besides 200 (the enrichment pipeline's outcomes)
 * @param degrades the answers must be degraded (Redis unavailable) rather than failed while the fault is held
 */
final case class FaultExpectation(designed: Set[Int], breaker: BreakerExpectation, degrades: Boolean = false)
