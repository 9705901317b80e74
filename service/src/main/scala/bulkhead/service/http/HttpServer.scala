package bulkhead.service.http

import bulkhead.service.config.ServiceSettings
import bulkhead.service.http.internal.ReusePort
import bulkhead.service.metrics.OpenConnections
import org.apache.pekko.actor.typed.ActorSystem
import org.apache.pekko.http.scaladsl.Http
import org.apache.pekko.http.scaladsl.model.{HttpRequest, HttpResponse}
import org.apache.pekko.http.scaladsl.server.Route
import org.apache.pekko.http.scaladsl.settings.ServerSettings as PekkoServerSettings
import org.apache.pekko.stream.scaladsl.Flow

import scala.concurrent.{ExecutionContext, Future}

/**
 * Binds the routes with the configured socket settings (Pekko's bind: graceful termination drains connections), on
 * `listeners` sockets sharing the port (SO_REUSEPORT), max-connections divided between them. The handler is a flow,
 * which Pekko materialises once per connection: it counts the connections the server serves.
 */
object HttpServer:

  /** The listeners the server opens when `requested` are configured: one where the OS has no SO_REUSEPORT. */
  def listenersFor(requested: Int): Int = if ReusePort.supported then requested else 1

  def bind(settings: ServiceSettings, route: Route,
      fastPath: PartialFunction[HttpRequest, Future[HttpResponse]], connections: OpenConnections)(using
      system: ActorSystem[?]): Future[Listeners] =
    val s = settings.server
    val listeners = listenersFor(s.listeners)
    val base = PekkoServerSettings(system.classicSystem)
    val serverSettings = base
      .withMaxConnections(math.max(1, s.maxConnections / listeners))
      .withSocketOptions(if listeners > 1 then base.socketOptions :+ ReusePort else base.socketOptions)
      .withBacklog(s.backlog)
      .withPipeliningLimit(s.pipeliningLimit)
      .withTimeouts(base.timeouts.withIdleTimeout(s.idleTimeout).withRequestTimeout(s.requestTimeout))
    val routeHandler = Route.toFunction(route)
    val handler: HttpRequest => Future[HttpResponse] = request => fastPath.applyOrElse(request, routeHandler)
    // What `bind(handler)` builds (mapAsync at the pipelining limit), plus the count; graceful termination is kept.
    val perConnection = Flow[HttpRequest].mapAsync(s.pipeliningLimit)(handler).watchTermination() { (mat, done) =>
      connections.opened()
      done.onComplete(_ => connections.closed())(ExecutionContext.parasitic)
      mat
    }

    def listen(port: Int): Future[Http.ServerBinding] =
      Http()(system.classicSystem).newServerAt(settings.host, port).withSettings(serverSettings).bindFlow(perConnection)

    given ExecutionContext = system.executionContext
    // The first listener fixes the port (0 = any free one); the others join it.
    listen(settings.port).flatMap { first =>
      val port = first.localAddress.getPort
      Future.sequence((2 to listeners).map(_ => listen(port)))
        .map(rest => Listeners(first +: rest))
        .recoverWith { case e =>
          first.unbind().transform(_ => scala.util.Failure(e))
        }
    }
