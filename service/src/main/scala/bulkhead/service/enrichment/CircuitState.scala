package bulkhead.service.enrichment

/** Whether calls to the third party are let through: `level` is what /metrics publishes (0, 1, 2). */
enum CircuitState(val level: Int):
  /** Calls go through; failures are counted. */
  case Closed extends CircuitState(0)
  /** One trial call goes through after the reset timeout; its outcome closes or re-opens the circuit. */
  case HalfOpen extends CircuitState(1)
  /** Calls are refused at once (503) until the reset timeout. */
  case Open extends CircuitState(2)
