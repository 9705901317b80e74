package bulkhead.stub

import bulkhead.transport.{HttpConnections, IoLoops, ServerSockets}
import org.apache.pekko.NotUsed
import org.apache.pekko.actor.ActorSystem
import org.apache.pekko.http.scaladsl.Http
import org.apache.pekko.http.scaladsl.model.{HttpRequest, HttpResponse}
import org.apache.pekko.http.scaladsl.server.Route
import org.apache.pekko.http.scaladsl.settings.ServerSettings
import org.apache.pekko.stream.scaladsl.{BidiFlow, TLSPlacebo}
import org.apache.pekko.util.ByteString

import scala.concurrent.duration.*
import scala.concurrent.{ExecutionContext, Future}

/**
 * Binds a route as Pekko HTTP's `newServerAt(...).bind` does (its HTTP layer, `max-connections`, `backlog`,
 * `pipelining-limit`, `idle-timeout` and `request-timeout` from `pekko.http.server`), on the selector transport the
 * service serves with (bulkhead's selector threads `loops`, accepting up to `acceptBatch` connections at a time). Pekko's
 * bind accepts one connection per round trip through its TCP actors: a caller whose client pool opens 2,000
 * connections at once would wait on the stub's accept, and the stub must never be what an experiment waits on; its
 * TCP actors also cost CPU that the service, on the same cores, then lacks.
 */
object HttpListener:

  /** Bytes a connection reads ahead of Pekko's HTTP layer: a SOAP request (a few hundred bytes) in one read. */
  private val ReadAheadBytes = 16 * 1024

  def bind(loops: IoLoops, host: String, port: Int, acceptBatch: Int, route: Route)(using system: ActorSystem)
      : Future[Http.ServerBinding] =
    require(acceptBatch >= 1, s"acceptBatch must be at least 1, not $acceptBatch")
    given ExecutionContext = system.dispatcher
    val settings = ServerSettings(system)
    val http = Http().serverLayer(settings).atop(TLSPlacebo())
    // A blueprint each connection materialises, as Pekko's bind does with its layer.
    val layer: BidiFlow[HttpResponse, ByteString, ByteString, HttpRequest, NotUsed] = settings.idleTimeout match
      case t: FiniteDuration => http.atop(BidiFlow.bidirectionalIdleTimeout[ByteString, ByteString](t))
      case _ => http
    val served = HttpConnections("stub-connections")
    val requests = served.answering(Route.toFunction(route), settings.pipeliningLimit)
    // The stub is a test tool: it never pauses its accept for a busy dispatcher (the service does).
    val transport = ServerSockets.Transport.Selector(loops, ReadAheadBytes, pauseAbove = Duration.Inf)
    val accepted = ServerSockets.bind(transport, host, port, settings.backlog, settings.socketOptions, acceptBatch)
    served.listen(accepted, settings.maxConnections)(served.serve(_, layer, requests)).map { tcp =>
      Http.ServerBinding(tcp.localAddress)(() => tcp.unbind(),
        deadline => served.terminate(Seq(tcp), deadline).map(_ => Http.HttpServerTerminated))
    }
