package bulkhead.service.http

import bulkhead.service.config.ServiceSettings
import bulkhead.service.metrics.ServiceMetrics
import org.apache.pekko.actor.typed.ActorSystem
import org.apache.pekko.http.scaladsl.Http
import org.apache.pekko.http.scaladsl.model.{HttpMethods, HttpRequest, HttpResponse, Uri}
import org.apache.pekko.http.scaladsl.server.Route
import org.apache.pekko.http.scaladsl.settings.ServerSettings as PekkoServerSettings

import scala.concurrent.Future

/** Binds the routes with the configured socket settings (Pekko's bind: graceful termination drains connections). */
object HttpServer:

  def bind(settings: ServiceSettings, route: Route, metrics: ServiceMetrics)(using
      system: ActorSystem[?]): Future[Http.ServerBinding] =
    val s = settings.server
    val base = PekkoServerSettings(system.classicSystem)
    val serverSettings = base
      .withMaxConnections(s.maxConnections)
      .withBacklog(s.backlog)
      .withPipeliningLimit(s.pipeliningLimit)
      .withTimeouts(base.timeouts.withIdleTimeout(s.idleTimeout).withRequestTimeout(s.requestTimeout))
    val routeHandler = Route.toFunction(route)
    val hello = Uri.Path("/hello")
    val helloServed = metrics.registry.counter("http.server.hello.fast")
    // optimization: the hottest path answers a pre-built response without entering the routing tree.
    val handler: HttpRequest => Future[HttpResponse] = request =>
      if request.method == HttpMethods.GET && request.uri.path == hello && request.uri.rawQueryString.isEmpty then
        helloServed.increment()
        Future.successful(Routes.Hello)
      else routeHandler(request)

    Http()(system.classicSystem)
      .newServerAt(settings.host, settings.port)
      .withSettings(serverSettings)
      .bind(handler)
