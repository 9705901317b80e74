package bulkhead.service.http

import bulkhead.service.enrichment.{CustomerLookup, CustomerOutcome}
import bulkhead.service.metrics.ServiceMetrics
import com.github.plokhotnyuk.jsoniter_scala.core.writeToArray
import org.apache.pekko.event.LoggingAdapter
import org.apache.pekko.http.scaladsl.model.*
import org.apache.pekko.http.scaladsl.model.headers.`Retry-After`

import scala.concurrent.{ExecutionContext, Future}
import scala.util.{Failure, Success}

import JsonCodecs.given

/**
 * `GET /customers/{id}`: the pipeline's outcome as a status and JSON, timed into /metrics. Used by the routing tree
 * and by the fast path that skips it: the directives (`onSuccess`, marshalling, the route timer's mapping on the
 * dispatcher) were a tenth of what an answer allocated, for a translation that needs none of them.
 */
final class CustomersEndpoint(customers: CustomerLookup, metrics: ServiceMetrics, log: LoggingAdapter):
  def respond(rawId: String): Future[HttpResponse] =
    val start = System.nanoTime()
    val answer =
      try customers.lookup(rawId)
      catch case scala.util.control.NonFatal(e) => Future.failed(e)
    // One transformation on the thread that completes the lookup: failures become the JSON 500, every answer is timed.
    answer.transform { outcome =>
      val response = outcome match
        case Success(o) => CustomersEndpoint.responseOf(o)
        case Failure(e) =>
          log.error(e, "customer lookup failed")
          ApiError.response(StatusCodes.InternalServerError, "the service failed to answer; see its log")
      metrics.recordRequest("customers", response.status.intValue, System.nanoTime() - start)
      Success(response)
    }(ExecutionContext.parasitic)

object CustomersEndpoint:
  def responseOf(outcome: CustomerOutcome): HttpResponse = outcome match
    case CustomerOutcome.Found(customer) =>
      HttpResponse(entity = HttpEntity(ContentTypes.`application/json`, writeToArray(customer)))
    case CustomerOutcome.BadId(detail) => ApiError.response(StatusCodes.BadRequest, detail)
    case CustomerOutcome.NotFound(detail) => ApiError.response(StatusCodes.NotFound, detail)
    case CustomerOutcome.ThirdPartyTimeout(detail) => ApiError.response(StatusCodes.GatewayTimeout, detail)
    case CustomerOutcome.ThirdPartyFailed(detail) => ApiError.response(StatusCodes.BadGateway, detail)
    case CustomerOutcome.Unavailable(detail, retryAfter) =>
      ApiError.response(StatusCodes.ServiceUnavailable, detail, Seq(`Retry-After`(retryAfter.toSeconds)))
