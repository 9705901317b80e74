package bulkhead.lab.faults

import scala.concurrent.duration.FiniteDuration

/**
 * What the design gives a hostile client's request that lasts `after` or longer: the service's own deadline for it
 * (`reason` names the setting) ends it with one of `designed` (a head held past request-head-timeout gets 408), where
 * the same answer sooner would be a fault of the service.
 */
final case class LateDesign(after: FiniteDuration, reason: String, designed: Set[Int])
