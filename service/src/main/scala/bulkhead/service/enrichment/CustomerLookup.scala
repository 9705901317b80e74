package bulkhead.service.enrichment

import scala.concurrent.Future

/** What the routes need from the enrichment pipeline. The future never fails: every failure is an outcome. */
trait CustomerLookup:
  def lookup(rawId: String): Future[CustomerOutcome]
