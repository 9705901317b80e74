package bulkhead.service.enrichment

/** Why a profile could not be read: the store is down, slow or unreachable. */
final case class ProfileUnavailable(detail: String)
