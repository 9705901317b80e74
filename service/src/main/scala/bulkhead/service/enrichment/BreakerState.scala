package bulkhead.service.enrichment

/** Something that can read the circuit breaker in front of the third party, e.g. to publish it. */
trait BreakerState:
  def state: CircuitState
  /**
   * Times the breaker opened so far. With a 1 s reset-timeout the open state can begin and end between two readings
   * of `state`; a count cannot be missed.
   */
  def openings: Long
