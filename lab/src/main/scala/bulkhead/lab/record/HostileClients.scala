package bulkhead.lab.record

/**
 * One group of hostile clients of a fault run: what they did, on how many connections, the statuses the design gives
 * them, what came of each request (an answer's status, or none: a client that never reads its answers closes its
 * connection itself and counts as abandoned), and the service's heap after a full GC while they were held, when read.
 * `late`, when the service has a deadline for what these clients do: the requests that lasted past it, the statuses
 * the design gives those besides `designed`, and what came of them (counted in `outcomes` too).
 */
final case class HostileClients(group: String, description: String, connections: Int, designed: Set[Int],
    outcomes: Map[RequestOutcome, Int], heldHeapMb: Option[Double] = None, late: Option[LateRequests] = None):
  def requests: Int = outcomes.values.sum
  def statuses: Map[Int, Int] = HostileClients.statuses(outcomes)
  /** The statuses the design does not give: any outside `designed`, or outside `late`'s too for the late requests. */
  def undesigned: Set[Int] =
    val lateStatuses = late.fold(Map.empty[Int, Int])(l => HostileClients.statuses(l.outcomes))
    val timely = statuses.filter((s, n) => n > lateStatuses.getOrElse(s, 0)).keySet
    (timely -- designed) ++ (lateStatuses.keySet -- designed -- late.fold(Set.empty[Int])(_.designed))

object HostileClients:
  def statuses(outcomes: Map[RequestOutcome, Int]): Map[Int, Int] =
    outcomes.collect { case (o, n) if o.status.isDefined => o.status.get -> n }

/**
 * Requests of a hostile group that lasted `pastMs` or longer, past the service's own deadline for them (`reason`
 * names it), with the statuses the design gives them for it (a head held past request-head-timeout: 408).
 */
final case class LateRequests(pastMs: Double, reason: String, designed: Set[Int], outcomes: Map[RequestOutcome, Int])
