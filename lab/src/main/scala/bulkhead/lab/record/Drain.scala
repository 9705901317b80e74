package bulkhead.lab.record

/**
 * The wait, before a measured run, for the work the previous load left in the service to end: a warm-up's departed
 * clients leave their SOAP calls in flight (1,892-2,000 of 2,048 slots after 2,000 clients on a 1 s third party), and
 * a run started on top of them gets 503s that belong to the warm-up.
 *
 * @param inFlightAtStart work in flight when the wait began (requests, SOAP calls and calls waiting for a slot)
 * @param leftInFlight    work still in flight when it ended: 0 when the service went quiet
 * @param waitedSeconds   how long the lab waited
 * @param quiet           whether the service went quiet within the lab's cap
 */
final case class Drain(inFlightAtStart: Double, leftInFlight: Double, waitedSeconds: Double, quiet: Boolean)
