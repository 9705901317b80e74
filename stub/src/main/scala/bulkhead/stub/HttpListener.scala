package bulkhead.stub

import org.apache.pekko.{Done, NotUsed}
import org.apache.pekko.actor.ActorSystem
import org.apache.pekko.http.scaladsl.Http
import org.apache.pekko.http.scaladsl.model.{HttpRequest, HttpResponse}
import org.apache.pekko.http.scaladsl.server.Route
import org.apache.pekko.http.scaladsl.settings.ServerSettings
import org.apache.pekko.stream.impl.io.{IoLoops, SelectorBindSource}
import org.apache.pekko.stream.scaladsl.{BidiFlow, Flow, Keep, Sink, TLSPlacebo, Tcp}
import org.apache.pekko.stream.{KillSwitches, Materializer}
import org.apache.pekko.util.ByteString

import java.util.concurrent.atomic.AtomicInteger
import scala.concurrent.duration.*
import scala.concurrent.{ExecutionContext, Future}
import scala.util.control.NonFatal

/**
 * Binds a route as Pekko HTTP's `newServerAt(...).bind` does (its HTTP layer, `max-connections`, `backlog`,
 * `pipelining-limit`, `idle-timeout` and `request-timeout` from `pekko.http.server`), on the selector transport the
 * service serves with ([[SelectorBindSource]] on `loops`, accepting up to `acceptBatch` connections at a time). Pekko's bind accepts one connection per round
 * trip through its TCP actors: a caller whose client pool opens 2,000 connections at once would wait on the stub's
 * accept, and the stub must never be what an experiment waits on; its TCP actors also cost CPU that the service, on
 * the same cores, then lacks.
 */
object HttpListener:

  def bind(loops: IoLoops, host: String, port: Int, acceptBatch: Int, route: Route)(using system: ActorSystem)
      : Future[Http.ServerBinding] =
    require(acceptBatch >= 1, s"acceptBatch must be at least 1, not $acceptBatch")
    given Materializer = Materializer.matFromSystem(system)
    given ExecutionContext = system.dispatcher
    val settings = ServerSettings(system)
    val handler = Route.toFunction(route)
    val http = Http().serverLayer(settings).atop(TLSPlacebo())
    // A blueprint each connection materialises, as Pekko's bind does with its layer.
    val layer: BidiFlow[HttpResponse, ByteString, ByteString, HttpRequest, NotUsed] = settings.idleTimeout match
      case t: FiniteDuration => http.atop(BidiFlow.bidirectionalIdleTimeout[ByteString, ByteString](t))
      case _ => http
    val everyConnection = KillSwitches.shared("stub-connections")
    val requestsInFlight = AtomicInteger()

    def answer(request: HttpRequest): Future[HttpResponse] =
      requestsInFlight.incrementAndGet()
      val answered = try handler(request) catch case NonFatal(e) => Future.failed(e)
      answered.andThen(_ => requestsInFlight.decrementAndGet())(ExecutionContext.parasitic)

    def serve(incoming: Tcp.IncomingConnection): Future[Done] =
      try
        val socket = incoming.flow.via(everyConnection.flow[ByteString]).watchTermination()(Keep.right)
        Flow[HttpRequest].mapAsync(settings.pipeliningLimit)(answer).join(layer).joinMat(socket)(Keep.right).run()
          .recover { case NonFatal(_) => Done }(ExecutionContext.parasitic)
      catch
        case NonFatal(e) =>
          system.log.error(e, "could not serve a connection from {}", incoming.remoteAddress)
          Future.successful(Done)

    val accepted = SelectorBindSource.bind(loops, host, port, settings.backlog, settings.socketOptions,
      halfClose = false, batch = acceptBatch, readAhead = 16 * 1024)
    accepted.mapAsyncUnordered(settings.maxConnections)(serve).to(Sink.ignore).run().map { tcp =>
      // As Pekko's terminate: no new connections, requests in flight answered up to the deadline, then every
      // connection closed.
      def terminate(deadline: FiniteDuration): Future[Http.HttpTerminated] =
        val end = deadline.fromNow
        def drained(): Future[Unit] =
          if requestsInFlight.get <= 0 || end.isOverdue() then Future.unit
          else org.apache.pekko.pattern.after(20.millis)(drained())
        tcp.unbind().recover { case NonFatal(_) => () }.flatMap(_ => drained()).map { _ =>
          everyConnection.shutdown()
          Http.HttpServerTerminated
        }
      Http.ServerBinding(tcp.localAddress)(() => tcp.unbind(), terminate)
    }
