package bulkhead.service.enrichment

import scala.concurrent.Future

/** Loyalty profiles by customer id (Redis hash `customer:{id}`). The future never fails: failures are `Left`. */
trait ProfileStore:
  def profile(id: Int): Future[Either[ProfileUnavailable, Option[LoyaltyProfile]]]
