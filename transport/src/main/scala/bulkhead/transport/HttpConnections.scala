package bulkhead.transport

import org.apache.pekko.actor.ActorSystem
import org.apache.pekko.http.scaladsl.model.{HttpRequest, HttpResponse}
import org.apache.pekko.stream.scaladsl.{BidiFlow, Flow, Keep, Sink, Source, Tcp}
import org.apache.pekko.stream.{Attributes, KillSwitches, Materializer}
import org.apache.pekko.util.ByteString
import org.apache.pekko.{Done, NotUsed}

import java.util.concurrent.atomic.AtomicInteger
import scala.concurrent.duration.*
import scala.concurrent.{ExecutionContext, Future}
import scala.util.control.NonFatal

/**
 * Pekko HTTP's server over a source of accepted connections, as `Http().newServerAt(...).bind` assembles it, for a
 * server that binds its sockets itself ([[ServerSockets]]): each connection's bytes joined with an HTTP layer and the
 * requests' flow, every connection behind one kill switch, the requests in flight counted, and the graceful stop of
 * Pekko's `terminate` (no new connections, the requests in flight answered up to a deadline, then every connection
 * closed). The service's `HttpServer` and the stub's `HttpListener` both serve through it.
 */
final class HttpConnections(name: String)(using system: ActorSystem):
  private given Materializer = Materializer.matFromSystem(system)
  private val everyConnection = KillSwitches.shared(name)
  private val requestsInFlight = AtomicInteger()

  /**
   * Serves each connection `accepted` hands over with `serve`, up to `limit` at once (Pekko's `max-connections`);
   * what one connection's failure does ends it, never the listener.
   */
  def listen(accepted: Source[Tcp.IncomingConnection, Future[Tcp.ServerBinding]], limit: Int)(
      serve: Tcp.IncomingConnection => Future[Done]): Future[Tcp.ServerBinding] =
    accepted.mapAsyncUnordered(limit)(serve).to(Sink.ignore).run()

  /**
   * One HTTP connection until it closes: its bytes through `layer` (Pekko's server layer and what the server adds),
   * its requests through `requests`. Completes when the connection has closed, whatever the reason.
   */
  def serve(incoming: Tcp.IncomingConnection, layer: BidiFlow[HttpResponse, ByteString, ByteString, HttpRequest, NotUsed],
      requests: Flow[HttpRequest, HttpResponse, Any], attributes: Attributes = Attributes.none): Future[Done] =
    val socket = incoming.flow.via(everyConnection.flow[ByteString]).watchTermination()(Keep.right)
    requests.join(layer).joinMat(socket)(Keep.right).addAttributes(attributes).run()
      .recover { case NonFatal(_) => Done }(ExecutionContext.parasitic)

  /** One connection whose bytes `bytes` answers without an HTTP layer (a refusal written as bytes). */
  def serveBytes(incoming: Tcp.IncomingConnection, bytes: Flow[ByteString, ByteString, Any]): Future[Done] =
    incoming.flow.via(everyConnection.flow[ByteString]).watchTermination()(Keep.right).join(bytes).run()
      .recover { case NonFatal(_) => Done }(ExecutionContext.parasitic)

  /** A request's flow that calls `handler`, `pipeliningLimit` requests of a connection at once, counted in flight. */
  def answering(handler: HttpRequest => Future[HttpResponse], pipeliningLimit: Int)
      : Flow[HttpRequest, HttpResponse, NotUsed] =
    Flow[HttpRequest].mapAsync(pipeliningLimit) { request =>
      requestStarted()
      val answered = try handler(request) catch case NonFatal(e) => Future.failed(e)
      // optimization: an answer ready at once is counted here, without a callback.
      if answered.isCompleted then requestEnded()
      else answered.onComplete(_ => requestEnded())(ExecutionContext.parasitic)
      answered
    }

  /** A request began (for a server that counts its requests itself instead of through [[answering]]). */
  def requestStarted(): Unit = requestsInFlight.incrementAndGet()

  /** A request counted by [[requestStarted]] was answered. */
  def requestEnded(): Unit = requestsInFlight.decrementAndGet()

  /** Requests begun and not yet answered. */
  def inFlight: Int = requestsInFlight.get

  /**
   * Pekko's graceful stop: every binding unbinds (no new connections), the requests in flight are answered up to
   * `deadline`, then every connection closes (work still running is abandoned by its server).
   */
  def terminate(bindings: Seq[Tcp.ServerBinding], deadline: FiniteDuration): Future[Done] =
    given ExecutionContext = system.dispatcher
    val end = deadline.fromNow
    def drained(): Future[Done] =
      if requestsInFlight.get <= 0 || end.isOverdue() then Future.successful(Done)
      else org.apache.pekko.pattern.after(20.millis)(drained())
    // A listener whose loop died cannot say it unbound: the deadline bounds the wait for it too.
    val unbound = Future.sequence(bindings.map(_.unbind().recover { case NonFatal(_) => () }))
    Future.firstCompletedOf(Seq(unbound.map(_ => Done), org.apache.pekko.pattern.after(deadline)(Future.successful(Done))))
      .flatMap(_ => drained())
      .map { _ =>
        everyConnection.shutdown()
        Done
      }
