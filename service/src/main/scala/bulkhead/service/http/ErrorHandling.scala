package bulkhead.service.http

import org.apache.pekko.event.LoggingAdapter
import org.apache.pekko.http.scaladsl.model.{HttpEntity, HttpResponse, StatusCodes}
import org.apache.pekko.http.scaladsl.server.{ExceptionHandler, RejectionHandler}

import scala.util.control.NonFatal

/** Turns every rejection and exception into a JSON [[ApiError]]; exceptions are logged, never sent. */
object ErrorHandling:

  val rejections: RejectionHandler =
    RejectionHandler.default
      .mapRejectionResponse {
        case res @ HttpResponse(status, _, entity: HttpEntity.Strict, _) =>
          res.withEntity(ApiError.entity(status, entity.data.utf8String))
        case res => res
      }

  def exceptions(log: LoggingAdapter): ExceptionHandler = ExceptionHandler { case NonFatal(e) =>
    log.error(e, "request failed")
    org.apache.pekko.http.scaladsl.server.Directives.complete(
      ApiError.response(StatusCodes.InternalServerError, "the service failed to answer; see its log"))
  }
