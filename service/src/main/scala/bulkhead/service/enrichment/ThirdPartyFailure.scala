package bulkhead.service.enrichment

/** How a call to the third party failed, in domain terms (no HTTP or XML type crosses this boundary). */
enum ThirdPartyFailure:
  /** The third party answered that it does not know the customer: an answer, not a failure of the third party. */
  case UnknownCustomer(id: Int)
  case Timeout(detail: String)
  case Fault(detail: String)
  case Malformed(detail: String)
  case Unreachable(detail: String)
  /** The call was not made: no capacity (work queue full) or circuit open. */
  case Refused(detail: String, retryAfterMillis: Long)
