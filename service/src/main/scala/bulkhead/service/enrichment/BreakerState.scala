package bulkhead.service.enrichment

/** Something that can read the circuit breaker in front of the third party, e.g. to publish it. */
trait BreakerState:
  def state: CircuitState
