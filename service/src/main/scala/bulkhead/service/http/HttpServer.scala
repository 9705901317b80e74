package bulkhead.service.http

import bulkhead.service.config.{ServiceSettings, SocketTransport}
import bulkhead.service.dispatch.{Pools, SelectorThreads}
import bulkhead.service.http.internal.ReusePort
import bulkhead.service.metrics.OpenConnections
import bulkhead.service.work.CancellationSignal
import bulkhead.transport.{HttpConnections, IoLoops, ServerSockets}
import org.apache.pekko.{Done, NotUsed}
import org.apache.pekko.actor.CoordinatedShutdown
import org.apache.pekko.actor.typed.ActorSystem
import org.apache.pekko.http.scaladsl.Http
import org.apache.pekko.http.scaladsl.model.headers.{Connection, `Retry-After`}
import org.apache.pekko.http.scaladsl.model.{HttpRequest, HttpResponse, StatusCodes}
import org.apache.pekko.http.scaladsl.server.Route
import org.apache.pekko.http.scaladsl.settings.ServerSettings as PekkoServerSettings
import org.apache.pekko.stream.scaladsl.{BidiFlow, Flow, TLSPlacebo, Tcp}
import org.apache.pekko.util.ByteString

import scala.concurrent.duration.*
import scala.concurrent.{ExecutionContext, Future, Promise}
import scala.util.control.NonFatal

/**
 * The service's HTTP server: Pekko's HTTP layer on each accepted socket, as Pekko's own bind assembles it, with what
 * that bind lacks:
 *  - connections above `max-connections` are still accepted (up to `refused-connections` more) and answered 503 with
 *    Retry-After at once, instead of waiting unanswered in the kernel's backlog;
 *  - a request head must arrive within `request-head-timeout` ([[RequestHeadDeadline]]): slow-header clients do not
 *    keep connections, and a head longer than `max-head-bytes` gets 431 there too, one that finds the heads in
 *    progress on every connection at `max-head-bytes-in-progress` ([[HeadBytesBudget]]) 503;
 *  - a request not answered within `request-timeout` gets a JSON 503 with Retry-After, on every path (the fast path
 *    too), and its work is abandoned; so is the work of a request whose client went away ([[ConnectionScope]]).
 * `listeners` sockets share the port (SO_REUSEPORT), the accept limits divided between them. The sockets are carried
 * by bulkhead's selector threads (`transport = selector`) or by Pekko's TCP actors, `accept-batch` connections
 * accepted at a time ([[bulkhead.transport.ServerSockets]]), and served through
 * [[bulkhead.transport.HttpConnections]]. A listener that stops without being asked (its selector thread died, its
 * socket failed) stops the service: a service that looks alive and accepts nothing is worse than one that is gone.
 */
final class HttpServer private (settings: ServiceSettings, route: Route,
    fastPath: PartialFunction[HttpRequest, Future[HttpResponse]], connections: OpenConnections,
    headBytes: HeadBytesBudget)(using system: ActorSystem[?]):
  private val s = settings.server
  private val classic = system.classicSystem
  private given ExecutionContext = system.executionContext
  private val listeners = HttpServer.listenersFor(s.listeners)
  private val base = PekkoServerSettings(classic)
  // Pekko's own request timeout is off: the connection answers timeouts itself (see `withDeadline`).
  private val pekkoSettings = base.withPipeliningLimit(s.pipeliningLimit).withTimeouts(
    base.timeouts.withIdleTimeout(s.idleTimeout).withRequestTimeout(Duration.Inf))
  private val socketOptions = if listeners > 1 then base.socketOptions :+ ReusePort else base.socketOptions
  private val serverHeader = base.serverHeader.map(_.value).getOrElse("")
  private val routeHandler = Route.toFunction(route)
  private val handler: HttpRequest => Future[HttpResponse] = request => fastPath.applyOrElse(request, routeHandler)
  private val served = HttpConnections("bulkhead-connections")(using classic)
  @volatile private var draining = false

  private val retryAfter = `Retry-After`(settings.retryAfter.toSeconds.max(1))
  private val refusedDetail =
    s"the service serves ${s.maxConnections} connections already (bulkhead.service.server.max-connections); retry"
  private val drainingAnswer =
    ApiError.response(StatusCodes.ServiceUnavailable, "the service is stopping", Seq(retryAfter, Connection("close")))
  private val timeoutAnswer = ApiError.response(StatusCodes.ServiceUnavailable,
    s"no answer within ${s.requestTimeout} (bulkhead.service.server.request-timeout); its work was given up",
    Seq(retryAfter))

  // The selector threads, started with the server and stopped with the actor system.
  private val ioLoops: Option[IoLoops] = Option.when(s.transport == SocketTransport.Selector)(
    SelectorThreads.start(Pools.ServerIo, s.ioThreads, HttpServer.ReadBufferBytes))

  private val transport = ioLoops match
    case Some(loops) => ServerSockets.Transport.Selector(loops, HttpServer.ReadAheadBytes, s.acceptPauseAbove)
    case None => ServerSockets.Transport.Pekko

  private def listen(port: Int): Future[Tcp.ServerBinding] =
    val acceptLimit = math.max(1, (s.maxConnections + s.refusedConnections + listeners - 1) / listeners)
    val accepted = ServerSockets.bind(transport, settings.host, port, s.backlog, socketOptions, s.acceptBatch)(
      using classic)
    served.listen(accepted, acceptLimit)(serve).map(watched)

  // A listener that ends while the server is not stopping (its selector thread died, its socket failed) stops it.
  private def watched(binding: Tcp.ServerBinding): Tcp.ServerBinding =
    binding.whenUnbound.onComplete { outcome =>
      if !draining then
        val why = outcome.fold(e => s"failed: $e", _ => "was closed")
        classic.log.error("the listener on {} {} while the service was serving: the service stops",
          binding.localAddress, why)
        CoordinatedShutdown(system).run(HttpServer.ListenerLost(binding.localAddress.toString, why))
    }
    binding

  /** One connection, until it closes; its failures end it, never the listener. */
  private def serve(incoming: Tcp.IncomingConnection): Future[Done] =
    connections.opened()
    if connections.count > s.maxConnections then refuse(incoming) else serveHttp(incoming)

  /**
   * A connection above max-connections: its first bytes are answered 503 with Retry-After and the connection closes.
   * optimization: written as bytes, without Pekko's HTTP layer: a client that reconnects at once (wrk does) would
   * otherwise cost a materialised HTTP connection (about 0.5 ms of CPU here) per refusal, taken from the connections
   * being served.
   */
  private def refuse(incoming: Tcp.IncomingConnection): Future[Done] =
    val answer = Flow[ByteString].takeWithin(s.requestHeadTimeout).take(1)
      .map(_ => RawAnswer(StatusCodes.ServiceUnavailable, refusedDetail, serverHeader,
        Seq("Retry-After" -> retryAfter.value)))
    try served.serveBytes(incoming, answer).andThen(_ => connections.closed())(ExecutionContext.parasitic)
    catch
      case NonFatal(e) =>
        connections.closed()
        Future.failed(e)

  // A connection that cannot be materialised is closed by its transport's register timeout (5 s).
  private def serveHttp(incoming: Tcp.IncomingConnection): Future[Done] =
    val scope = ConnectionScope()
    try
      val requests = Flow[HttpRequest].mapAsync(s.pipeliningLimit)(request => answer(request, scope))
      val bytes = if remoteAddress then layer(Some(incoming.remoteAddress)) else sharedLayer
      served.serve(incoming, bytes, requests, ConnectionScope.attributes(scope))
        .andThen { _ =>
          scope.end()
          connections.closed()
        }(ExecutionContext.parasitic)
    catch
      case NonFatal(e) =>
        classic.log.error(e, "could not serve a connection from {}", incoming.remoteAddress)
        scope.end()
        connections.closed()
        Future.successful(Done)

  /**
   * Between a connection's requests and its socket: Pekko's HTTP layer, the request-head deadline, the idle timeout.
   * A blueprint that every connection materialises, as Pekko HTTP's own bind does with its layer (HttpExt.bindImpl;
   * each materialisation gets its own copy of the header parser): built per connection, it primed a header parser and
   * composed a dozen stages each time, a third of a connection's CPU here (JFR, one /hello per connection). Pekko
   * gives the remote address (header or attribute) only through the layer's builder: with either on, per connection.
   */
  private def layer(remote: Option[java.net.InetSocketAddress]): BidiFlow[HttpResponse, ByteString, ByteString,
      HttpRequest, NotUsed] =
    Http()(classic).serverLayer(pekkoSettings, remote, clientWarnings)
      .atop(TLSPlacebo())
      .atop(BidiFlow.fromGraph(RequestHeadDeadline(s.requestHeadTimeout, s.maxHeadBytes, headBytes,
        settings.retryAfter.toSeconds.max(1), serverHeader)))
      .atop(BidiFlow.bidirectionalIdleTimeout[ByteString, ByteString](s.idleTimeout))

  // Pekko's HTTP layer warns per request about clients' mistakes: bounded here, one line a second.
  private val clientWarnings = ClientWarningLog(classic.log)
  private val sharedLayer = layer(None)
  private val remoteAddress = pekkoSettings.remoteAddressHeader || pekkoSettings.remoteAddressAttribute

  private def answer(request: HttpRequest, scope: ConnectionScope): Future[HttpResponse] =
    val signal = scope.requestStarted()
    served.requestStarted()
    val answered =
      if draining then Future.successful(drainingAnswer)
      else
        try withDeadline(handler(ConnectionScope.attach(request, signal)), signal)
        catch case NonFatal(e) => Future.failed(e)
    // optimization: an answer ready at once (/hello) is counted here, without a callback.
    if answered.isCompleted then requestDone(scope, signal)
    else answered.onComplete(_ => requestDone(scope, signal))(ExecutionContext.parasitic)
    answered

  private def requestDone(scope: ConnectionScope, signal: CancellationSignal): Unit =
    scope.requestAnswered(signal)
    served.requestEnded()

  /**
   * The answer, or at request-timeout the JSON 503 and the request abandoned (its work stops). optimization: answers
   * that are ready at once (/hello, refusals) schedule no timer.
   */
  private def withDeadline(answer: Future[HttpResponse], signal: CancellationSignal): Future[HttpResponse] =
    if answer.isCompleted then answer
    else
      val deadline = Promise[HttpResponse]()
      val timer = classic.scheduler.scheduleOnce(s.requestTimeout, () =>
        if deadline.trySuccess(timeoutAnswer) then signal.cancel())(ExecutionContext.parasitic)
      answer.onComplete { outcome =>
        timer.cancel()
        deadline.tryComplete(outcome)
      }(ExecutionContext.parasitic)
      deadline.future

  /**
   * Graceful stop: no new connections; requests that arrive get 503 and `Connection: close`; requests in flight
   * finish up to `deadline`; then every connection is closed (work still running is abandoned).
   */
  private def terminate(bindings: Seq[Tcp.ServerBinding], deadline: FiniteDuration): Future[Done] =
    draining = true
    served.terminate(bindings, deadline)

object HttpServer:

  /** Why the service stopped: a listener ended while it was serving (`why`: failed, or closed). */
  final case class ListenerLost(address: String, why: String) extends CoordinatedShutdown.Reason

  /** The most a read of the selector transport takes from one socket (Pekko's `direct-buffer-size` is 128 KiB). */
  private val ReadBufferBytes = 64 * 1024

  /**
   * Bytes a connection of the selector transport reads ahead of its stream before it stops reading, its reads
   * included: what a connection that sends what the service does not take holds (HeapBudget counts it; Pekko's
   * pull-mode reads hold up to two reads of 128 KiB in the same case). A request head is parsed as it arrives, so its
   * bytes do not wait here.
   */
  val ReadAheadBytes: Int = 1024

  /** The listeners the server opens when `requested` are configured: one where the OS has no SO_REUSEPORT. */
  def listenersFor(requested: Int): Int = if ReusePort.supported then requested else 1

  /**
   * Binds every listener: the first fixes the port (0 = any free one), the others join it. `headBytes` is the budget
   * of request heads in progress that every connection of this server shares.
   */
  def bind(settings: ServiceSettings, route: Route,
      fastPath: PartialFunction[HttpRequest, Future[HttpResponse]], connections: OpenConnections,
      headBytes: HeadBytesBudget)(using system: ActorSystem[?]): Future[Listeners] =
    val server = HttpServer(settings, route, fastPath, connections, headBytes)
    given ExecutionContext = system.executionContext
    server.listen(settings.port).flatMap { first =>
      val port = first.localAddress.getPort
      Future.sequence((2 to server.listeners).map(_ => server.listen(port)))
        .map(rest => Listeners(first +: rest, server.terminate, server.ioLoops))
        .recoverWith { case e =>
          first.unbind().transform(_ => scala.util.Failure(e))
        }
    }
