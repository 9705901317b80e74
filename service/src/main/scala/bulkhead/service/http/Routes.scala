package bulkhead.service.http

import bulkhead.service.enrichment.{CustomerLookup, CustomerOutcome}
import bulkhead.service.metrics.ServiceMetrics
import bulkhead.service.work.{WorkDone, WorkMode, WorkRefusal, WorkRunner}
import com.github.plokhotnyuk.jsoniter_scala.core.JsonValueCodec
import com.github.plokhotnyuk.jsoniter_scala.macros.JsonCodecMaker
import org.apache.pekko.event.LoggingAdapter
import org.apache.pekko.http.scaladsl.model.*
import org.apache.pekko.http.scaladsl.model.headers.`Retry-After`
import org.apache.pekko.http.scaladsl.server.Directives.*
import org.apache.pekko.http.scaladsl.server.{Directive0, Route, RouteResult}

import JsonSupport.given

/** HTTP in, one call, status out: the routes translate and decide nothing else. */
final class Routes(work: WorkRunner, customers: CustomerLookup, metrics: ServiceMetrics, defaultMs: Int,
    ready: () => Boolean, log: LoggingAdapter, serveMetrics: Boolean = true):
  private given JsonValueCodec[WorkDone] = JsonCodecMaker.make

  val route: Route =
    handleExceptions(ErrorHandling.exceptions(log)) {
      handleRejections(ErrorHandling.rejections) {
        withRequestTimeoutResponse(_ => ApiError.response(StatusCodes.ServiceUnavailable, "request timed out")) {
          concat(
            path("hello")(timed("hello")(get(complete(Routes.Hello)))),
            path("work" / Segment)(mode => timed("work")(get(workRoute(mode)))),
            path("customers" / Segment)(id => timed("customers")(get(customerRoute(id)))),
            if serveMetrics then metricsRoute else reject,
            path("health")(get(healthRoute)))
        }
      }
    }

  private def workRoute(modeKey: String): Route =
    parameter("ms".optional) { rawMs =>
      WorkMode.parse(modeKey).flatMap(mode => WorkMode.parseMillis(rawMs, defaultMs).map(mode -> _)) match
        case Left(detail) => complete(ApiError.response(StatusCodes.BadRequest, detail))
        case Right((mode, ms)) =>
          work.run(mode, ms) match
            case Left(WorkRefusal.BadMillis(detail)) => complete(ApiError.response(StatusCodes.BadRequest, detail))
            case Left(WorkRefusal.Unsupported(detail)) => complete(ApiError.response(StatusCodes.NotImplemented, detail))
            case Right(done) => onSuccess(done)(d => complete(d))
    }

  private def customerRoute(id: String): Route =
    onSuccess(customers.lookup(id)) {
      case CustomerOutcome.Found(customer) => complete(customer)
      case CustomerOutcome.BadId(detail) => complete(ApiError.response(StatusCodes.BadRequest, detail))
      case CustomerOutcome.NotFound(detail) => complete(ApiError.response(StatusCodes.NotFound, detail))
      case CustomerOutcome.ThirdPartyTimeout(detail) => complete(ApiError.response(StatusCodes.GatewayTimeout, detail))
      case CustomerOutcome.ThirdPartyFailed(detail) => complete(ApiError.response(StatusCodes.BadGateway, detail))
      case CustomerOutcome.Unavailable(detail, retryAfter) =>
        complete(ApiError.response(StatusCodes.ServiceUnavailable, detail, Seq(`Retry-After`(retryAfter.toSeconds))))
    }

  /** /metrics, and /health for whoever probes the listener it sits on. */
  val metricsRoute: Route = path("metrics")(get(complete(HttpEntity(ContentTypes.`text/plain(UTF-8)`, metrics.scrape()))))

  def metricsListenerRoute: Route =
    handleRejections(ErrorHandling.rejections)(concat(metricsRoute, path("health")(get(healthRoute))))

  private def healthRoute: Route =
    if ready() then complete(HttpEntity(ContentTypes.`application/json`, """{"status":"up"}"""))
    else complete(ApiError.response(StatusCodes.ServiceUnavailable, "starting or stopping"))

  /** Records the route's latency and status in /metrics. */
  private def timed(name: String): Directive0 =
    extractRequestContext.flatMap { ctx =>
      val start = System.nanoTime()
      mapRouteResultFuture(_.map {
        case done @ RouteResult.Complete(response) =>
          metrics.recordRequest(name, response.status.intValue, System.nanoTime() - start)
          done
        case other => other
      }(ctx.executionContext))
    }

object Routes:
  /** `GET /hello`'s answer, built once: the seeds' plain `OK`. */
  val Hello: HttpResponse = HttpResponse(entity = HttpEntity(ContentTypes.`text/plain(UTF-8)`, "OK"))
