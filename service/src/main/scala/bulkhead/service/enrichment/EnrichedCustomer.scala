package bulkhead.service.enrichment

/** The merged answer of `GET /customers/{id}`. */
final case class EnrichedCustomer(id: Int, name: String, segment: String, country: String, loyalty: Loyalty)

object EnrichedCustomer:
  def merge(customer: ThirdPartyCustomer, loyalty: Loyalty): EnrichedCustomer =
    EnrichedCustomer(customer.id, customer.name, customer.segment, customer.country, loyalty)
