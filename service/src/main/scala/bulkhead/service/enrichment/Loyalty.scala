package bulkhead.service.enrichment

/** The loyalty part of an answer: the profile, or `available = false` when Redis could not be read. */
final case class Loyalty(available: Boolean, points: Option[Long], tier: Option[String], lastOrder: Option[String])

object Loyalty:
  val Unavailable: Loyalty = Loyalty(available = false, None, None, None)
  /** A customer with no profile in Redis: the store answered, there is nothing to add. */
  val Empty: Loyalty = Loyalty(available = true, None, None, None)
  def of(p: LoyaltyProfile): Loyalty = Loyalty(available = true, Some(p.points), Some(p.tier), Some(p.lastOrder))
