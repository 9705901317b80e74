package bulkhead.service.soap

import org.apache.pekko.actor.typed.ActorSystem
import org.apache.pekko.http.scaladsl.Http
import org.apache.pekko.http.scaladsl.model.{HttpRequest, HttpResponse}
import org.apache.pekko.http.scaladsl.settings.ClientConnectionSettings
import org.apache.pekko.stream.scaladsl.{Keep, Sink, Source}
import org.apache.pekko.stream.{BoundedSourceQueue, KillSwitches, QueueOfferResult, SharedKillSwitch}

import java.io.IOException
import java.util.concurrent.ConcurrentLinkedDeque
import java.util.concurrent.atomic.{AtomicBoolean, AtomicInteger}
import scala.concurrent.{ExecutionContext, Future, Promise}
import scala.util.control.NoStackTrace

/**
 * The SOAP client's connections to the third party, one call at a time on each: a connection is taken idle (or opened)
 * for a call and given back once its answer has been read whole. Admission ([[AdmittedSoapClient]]) hands the client at
 * most max-connections calls at once, so a call always finds a connection here and nothing waits in a queue.
 *
 * A call is cancelled at its deadline by aborting its connection (a kill switch on both sides of Pekko HTTP's client
 * connection flow; the request side's failure is what aborts the socket, as when Pekko's own pool closes a
 * connection): the socket closes whether the answer's head came or not, and the next call opens a new one. Why not
 * Pekko's host pool: it lets a caller cancel a call only by failing the request's entity, so every request had to be a
 * streamed entity kept open until its answer (Pekko renders its head, then runs the body as a substream), and the pool
 * is one actor with a state machine per slot between the caller and the connection; a request here is strict, rendered
 * with its head in one piece, and goes from the caller's thread straight into its connection's stream.
 */
final class SoapConnections(host: String, port: Int, settings: ClientConnectionSettings)(using system: ActorSystem[?]):
  // The connection idle the shortest time is taken first, so that connections above what the load needs idle out
  // (and the one taken is the least likely to have been closed by the third party meanwhile).
  private val idle = ConcurrentLinkedDeque[SoapConnections.Connection]()
  private val openNow = AtomicInteger()
  private val opened = AtomicInteger()
  @volatile private var closed = false

  /** Connections open now (idle or carrying a call). */
  def open: Int = openNow.get

  /** An idle connection still open, or a new one. */
  def acquire(): SoapConnections.Connection =
    var c = idle.pollFirst()
    while c != null && !c.alive do c = idle.pollFirst()
    if c != null then c else connect()

  /** Gives back a connection whose call's answer was read whole: idle for the next call, unless it closed meanwhile. */
  def release(c: SoapConnections.Connection): Unit =
    if c.alive && !closed then
      c.idle()
      idle.offerFirst(c)
      // A connection that ended between the check and the add is dropped by the next acquire.
    else c.abort(SoapConnections.Closed)

  /** Closes every connection. */
  def close(): Unit =
    closed = true
    var c = idle.poll()
    while c != null do
      c.abort(SoapConnections.Closed)
      c = idle.poll()

  private def connect(): SoapConnections.Connection =
    val switch = KillSwitches.shared(s"soap-connection-${opened.incrementAndGet()}")
    val c = SoapConnections.Connection(switch)
    val (queue, ended) = Source.queue[HttpRequest](1)
      .via(switch.flow)
      .via(Http()(system.classicSystem).outgoingConnection(host, port, settings = settings))
      .via(switch.flow)
      .toMat(Sink.foreach[HttpResponse](c.answer))(Keep.both)
      .run()
    c.attach(queue)
    openNow.incrementAndGet()
    ended.onComplete { result =>
      openNow.decrementAndGet()
      c.ended(result.failed.toOption.getOrElse(SoapConnections.ClosedByPeer))
    }(ExecutionContext.parasitic)
    c

object SoapConnections:
  /** What a call on a connection that ended gets when the connection itself gave no reason. */
  object ClosedByPeer extends IOException("the third party closed the connection") with NoStackTrace
  private object Closed extends IOException("the SOAP client closed the connection") with NoStackTrace

  /** One connection: at most one call on it at a time. */
  final class Connection private[SoapConnections] (switch: SharedKillSwitch):
    private val ending = AtomicBoolean()
    // Set once, right after the connection's stream is materialised, before the connection is handed out.
    private var queue: BoundedSourceQueue[HttpRequest] = null
    @volatile private var pending: Promise[HttpResponse] = null
    @volatile private var cause: Throwable = null

    /** Whether the connection may carry another call. */
    def alive: Boolean = !ending.get

    /** Sends `request`; the answer's head, or the connection's end. */
    def send(request: HttpRequest): Future[HttpResponse] =
      val answer = Promise[HttpResponse]()
      pending = answer
      if ending.get then answer.tryFailure(Option(cause).getOrElse(ClosedByPeer))
      else queue.offer(request) match
        case QueueOfferResult.Enqueued => ()
        case QueueOfferResult.Failure(e) => answer.tryFailure(e)
        case other => answer.tryFailure(IOException(s"the SOAP connection refused the call: $other"))
      // The connection may have ended after the check above without seeing this call's promise: fail it now.
      if ending.get then answer.tryFailure(Option(cause).getOrElse(ClosedByPeer))
      answer.future

    /** Closes the connection at once (RST): its call, if any, fails with `e`. */
    def abort(e: Throwable): Unit =
      if ending.compareAndSet(false, true) then cause = e
      switch.abort(e)

    private[SoapConnections] def attach(q: BoundedSourceQueue[HttpRequest]): Unit = queue = q

    // Back in the idle list: nothing of the last call is kept.
    private[SoapConnections] def idle(): Unit = pending = null

    private[SoapConnections] def answer(response: HttpResponse): Unit =
      // An answer that says the connection ends with it (`Connection: close`, HTTP/1.0): no call may follow it there,
      // though the connection's end may come a moment after the answer is read.
      if response.connectionCloseExpected && ending.compareAndSet(false, true) then cause = ClosedByPeer
      val p = pending
      if p != null then p.trySuccess(response)

    private[SoapConnections] def ended(e: Throwable): Unit =
      if ending.compareAndSet(false, true) then cause = e
      val p = pending
      if p != null then p.tryFailure(Option(cause).getOrElse(e))
