package bulkhead.service.enrichment

import scala.concurrent.duration.FiniteDuration

/** Every answer the pipeline can give; the route maps each to one status. */
enum CustomerOutcome:
  case Found(customer: EnrichedCustomer)
  /** The id is not a customer id (400). */
  case BadId(detail: String)
  /** The third party does not know this customer (404). */
  case NotFound(detail: String)
  /** The third party did not answer in time (504). */
  case ThirdPartyTimeout(detail: String)
  /** The third party answered with a fault or something unreadable (502). */
  case ThirdPartyFailed(detail: String)
  /** Not attempted: overload, circuit open, work queue full (503 with Retry-After). */
  case Unavailable(detail: String, retryAfter: FiniteDuration)
