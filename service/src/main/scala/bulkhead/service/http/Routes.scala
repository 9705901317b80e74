package bulkhead.service.http

import bulkhead.service.enrichment.CustomerLookup
import bulkhead.service.metrics.ServiceMetrics
import bulkhead.service.work.WorkRunner
import org.apache.pekko.event.LoggingAdapter
import org.apache.pekko.http.scaladsl.model.*
import org.apache.pekko.http.scaladsl.server.Directives.*
import org.apache.pekko.http.scaladsl.server.{Directive0, Route, RouteResult}

import java.util.concurrent.TimeUnit
import scala.concurrent.Future

/**
 * HTTP in, one call, status out: the routes translate and decide nothing else. Timeouts are answered by the connection
 * ([[HttpServer]]), for the routing tree and the fast path alike.
 */
final class Routes(work: WorkRunner, customers: CustomerLookup, metrics: ServiceMetrics, defaultMs: Int,
    ready: () => Boolean, log: LoggingAdapter, serveMetrics: Boolean = true):
  private val workEndpoint = WorkEndpoint(work, metrics, defaultMs, log)
  private val customersEndpoint = CustomersEndpoint(customers, metrics, log)
  // optimization: /hello's meter resolved once, so the fast path records without a lookup or a builder.
  private val helloAnswered = metrics.requestTimer("hello", Routes.Hello.status.intValue)

  val route: Route =
    handleExceptions(ErrorHandling.exceptions(log)) {
      handleRejections(ErrorHandling.rejections) {
        concat(
          path("hello")(timed("hello")(get(complete(Routes.Hello)))),
          path("work" / Segment)(mode => get(parameter("ms".optional)(ms => extractRequest(request =>
            complete(workEndpoint.respond(mode, ms, ConnectionScope.cancellationOf(request))))))),
          path("customers" / Segment)(id => get(complete(customersEndpoint.respond(id)))),
          if serveMetrics then metricsRoute else reject,
          path("health")(get(healthRoute)))
      }
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

  /**
   * The hottest requests, answered without entering the routing tree (exception and rejection handlers,
   * marshalling: CPU per request that `GET /hello`, a pre-built response, `GET /work/{mode}` and
   * `GET /customers/{id}` do not need).
   * Anything else goes to [[route]], which gives the same answers for these paths (Pekko's parser has already refused
   * a malformed URI). Both are timed into `http.server.requests` like every route.
   */
  val fastPath: PartialFunction[HttpRequest, Future[HttpResponse]] = {
    case r if r.method == HttpMethods.GET && r.uri.path == Routes.HelloPath && r.uri.rawQueryString.isEmpty =>
      val start = System.nanoTime()
      val answer = Future.successful(Routes.Hello)
      helloAnswered.record(System.nanoTime() - start, TimeUnit.NANOSECONDS)
      answer
    case r @ Routes.WorkPath(mode) if r.method == HttpMethods.GET =>
      workEndpoint.respond(mode, r.uri.query().get("ms"), ConnectionScope.cancellationOf(r))
    case r @ Routes.CustomersPath(id) if r.method == HttpMethods.GET => customersEndpoint.respond(id)
  }

object Routes:
  private val HelloPath = Uri.Path("/hello")

  /** `/work/{mode}`, as `path("work" / Segment)` matches it. */
  private object WorkPath:
    def unapply(r: HttpRequest): Option[String] = r.uri.path match
      case Uri.Path.Slash(Uri.Path.Segment("work", Uri.Path.Slash(Uri.Path.Segment(mode, Uri.Path.Empty)))) => Some(mode)
      case _ => None

  /** `/customers/{id}`, as `path("customers" / Segment)` matches it. */
  private object CustomersPath:
    def unapply(r: HttpRequest): Option[String] = r.uri.path match
      case Uri.Path.Slash(Uri.Path.Segment("customers", Uri.Path.Slash(Uri.Path.Segment(id, Uri.Path.Empty)))) =>
        Some(id)
      case _ => None

  /** `GET /hello`'s answer, built once: the plain `OK` of the benchmarks it is compared with. */
  val Hello: HttpResponse = HttpResponse(entity = HttpEntity(ContentTypes.`text/plain(UTF-8)`, "OK"))
