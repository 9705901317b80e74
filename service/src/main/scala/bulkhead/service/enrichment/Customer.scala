package bulkhead.service.enrichment

import com.github.plokhotnyuk.jsoniter_scala.core.JsonValueCodec
import com.github.plokhotnyuk.jsoniter_scala.macros.{CodecMakerConfig, JsonCodecMaker}

/** A customer as the third party knows it. */
final case class ThirdPartyCustomer(id: Int, name: String, segment: String, country: String)

/** A customer's loyalty profile, from Redis hash `customer:{id}`. */
final case class LoyaltyProfile(points: Long, tier: String, lastOrder: String)

/** The loyalty part of an answer: the profile, or `available = false` when Redis could not be read. */
final case class Loyalty(available: Boolean, points: Option[Long], tier: Option[String], lastOrder: Option[String])

object Loyalty:
  val Unavailable: Loyalty = Loyalty(available = false, None, None, None)
  /** A customer with no profile in Redis: the store answered, there is nothing to add. */
  val Empty: Loyalty = Loyalty(available = true, None, None, None)
  def of(p: LoyaltyProfile): Loyalty = Loyalty(available = true, Some(p.points), Some(p.tier), Some(p.lastOrder))

/** The merged answer of `GET /customers/{id}`. */
final case class EnrichedCustomer(id: Int, name: String, segment: String, country: String, loyalty: Loyalty)

object EnrichedCustomer:
  given JsonValueCodec[EnrichedCustomer] = JsonCodecMaker.make(CodecMakerConfig.withTransientNone(true))

  def merge(customer: ThirdPartyCustomer, loyalty: Loyalty): EnrichedCustomer =
    EnrichedCustomer(customer.id, customer.name, customer.segment, customer.country, loyalty)
