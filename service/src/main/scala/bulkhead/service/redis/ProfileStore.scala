package bulkhead.service.redis

import bulkhead.service.enrichment.LoyaltyProfile

import scala.concurrent.Future

/** Why a profile could not be read: the store is down, slow or unreachable. */
final case class ProfileUnavailable(detail: String)

/** Loyalty profiles by customer id (Redis hash `customer:{id}`). The future never fails: failures are `Left`. */
trait ProfileStore:
  def profile(id: Int): Future[Either[ProfileUnavailable, Option[LoyaltyProfile]]]

/** The stores handed to routees: one connection each (seed 004) or one shared, by configuration. */
trait ProfileStores:
  def forRoutee(index: Int): ProfileStore
  /** Connections currently open to Redis. */
  def openConnections: Int
  def close(): Unit
