package bulkhead.service.enrichment

import scala.concurrent.Future

/** The third party's `GetCustomer` operation. The future never fails: failures are `Left`. */
trait SoapClient:
  def getCustomer(id: Int): Future[Either[ThirdPartyFailure, ThirdPartyCustomer]]
  def close(): Unit = ()
