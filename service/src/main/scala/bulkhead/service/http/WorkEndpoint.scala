package bulkhead.service.http

import bulkhead.service.metrics.ServiceMetrics
import bulkhead.service.work.{Cancellation, WorkAbandoned, WorkDone, WorkMode, WorkRefusal, WorkRunner}
import com.github.plokhotnyuk.jsoniter_scala.core.writeToArray
import org.apache.pekko.event.LoggingAdapter
import org.apache.pekko.http.scaladsl.model.*
import org.apache.pekko.http.scaladsl.model.headers.`Retry-After`

import scala.concurrent.{ExecutionContext, Future}
import scala.util.{Failure, Success}

import JsonCodecs.given

/**
 * `GET /work/{mode}?ms=`: the answer as a function of the path segment and the raw `ms`, timed into /metrics. Used by
 * the routing tree and by the fast path that skips it (the work routes are the lab's hottest after /hello). The work
 * stops when `cancellation` fires (its request was abandoned).
 */
final class WorkEndpoint(work: WorkRunner, metrics: ServiceMetrics, defaultMs: Int, log: LoggingAdapter):
  def respond(modeKey: String, rawMs: Option[String], cancellation: Cancellation): Future[HttpResponse] =
    val start = System.nanoTime()
    val answer = WorkMode.parse(modeKey).flatMap(mode => WorkMode.parseMillis(rawMs, defaultMs).map(mode -> _)) match
      case Left(detail) => Future.successful(ApiError.response(StatusCodes.BadRequest, detail))
      case Right((mode, ms)) =>
        work.run(mode, ms, cancellation) match
          case Left(WorkRefusal.BadMillis(detail)) => Future.successful(ApiError.response(StatusCodes.BadRequest, detail))
          case Left(WorkRefusal.Unsupported(detail)) =>
            Future.successful(ApiError.response(StatusCodes.NotImplemented, detail))
          case Left(WorkRefusal.Disabled(detail)) => Future.successful(ApiError.response(StatusCodes.Forbidden, detail))
          case Left(WorkRefusal.Busy(detail, retryAfter)) =>
            Future.successful(ApiError.response(StatusCodes.ServiceUnavailable, detail,
              Seq(`Retry-After`(retryAfter.toSeconds.max(1)))))
          case Right(done) =>
            done.map(d => HttpResponse(entity = HttpEntity(ContentTypes.`application/json`, writeToArray(d))))(
              ExecutionContext.parasitic)
    // One transformation on the caller's thread: failures become the JSON 500, every answer is timed.
    answer.transform { outcome =>
      val response = outcome match
        case Success(r) => r
        // Nobody reads this answer: the client went away, or the request timed out and was answered already.
        case Failure(WorkAbandoned) =>
          ApiError.response(StatusCodes.ServiceUnavailable, "the request was abandoned before its work ended")
        case Failure(e) =>
          log.error(e, "work failed")
          ApiError.response(StatusCodes.InternalServerError, "the service failed to answer; see its log")
      metrics.recordRequest("work", response.status.intValue, System.nanoTime() - start)
      Success(response)
    }(ExecutionContext.parasitic)
