package bulkhead.service.enrichment

/** A customer as the third party knows it. */
final case class ThirdPartyCustomer(id: Int, name: String, segment: String, country: String)
