package bulkhead.service.enrichment

/** A customer's loyalty profile, from Redis hash `customer:{id}`. */
final case class LoyaltyProfile(points: Long, tier: String, lastOrder: String)
