package bulkhead.lab.record

/**
 * One group of hostile clients of a fault run: what they did, on how many connections, the statuses the design gives
 * them, what came of each request (an answer's status, or none: a client that never reads its answers closes its
 * connection itself and counts as abandoned), and the service's heap after a full GC while they were held, when read.
 */
final case class HostileClients(group: String, description: String, connections: Int, designed: Set[Int],
    outcomes: Map[RequestOutcome, Int], heldHeapMb: Option[Double] = None):
  def requests: Int = outcomes.values.sum
  def statuses: Map[Int, Int] = outcomes.collect { case (o, n) if o.status.isDefined => o.status.get -> n }
