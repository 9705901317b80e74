package bulkhead.service.http

import bulkhead.service.work.{Cancellation, CancellationSignal}
import org.apache.pekko.http.scaladsl.model.{AttributeKey, HttpRequest}
import org.apache.pekko.stream.Attributes

/**
 * The requests of one connection: each gets a [[CancellationSignal]] that the connection fires when the request is
 * abandoned (timed out, or the connection ended: the client went away). The counters let the connection's byte stage
 * tell whether a request head arrived (see [[RequestHeadDeadline]]).
 */
final class ConnectionScope:
  // optimization: a connection holds at most pipelining-limit requests at once, nearly always one: a list under the
  // scope's monitor (rarely contended: the connection's stream, the thread that completes an answer, once the end)
  // instead of a concurrent set, whose add was 2-3 % of the CPU of a keep-alive /hello (JFR at c=1000). The counters
  // are volatile for the head-deadline stage, which reads them without the monitor.
  private var open: List[CancellationSignal] = Nil
  private var ended = false
  @volatile private var started = 0L
  @volatile private var answered = 0L

  /** A request of this connection reached the handler: its signal, already fired if the connection has ended. */
  def requestStarted(): CancellationSignal =
    val signal = CancellationSignal()
    val cancelled = synchronized {
      started += 1
      if !ended then open = signal :: open
      ended
    }
    if cancelled then signal.cancel()
    signal

  def requestAnswered(signal: CancellationSignal): Unit = synchronized {
    open = open.filterNot(_ eq signal)
    answered += 1
  }

  /** Requests that reached the handler so far. */
  def requestsStarted: Long = started

  /** True while a request is being handled. */
  def busy: Boolean =
    // `answered` first: read after it, `started` is at least as new, so an answered request never looks open.
    val a = answered
    a < started

  /** The connection ended or its client stopped sending: every request still open is abandoned. */
  def end(): Unit =
    val abandoned = synchronized {
      ended = true
      val all = open
      open = Nil
      all
    }
    abandoned.foreach(_.cancel())

object ConnectionScope:
  private val Key = AttributeKey[Cancellation]("bulkhead-cancellation")

  /** The scope of a connection, given to the stages of its byte stream, whose blueprint all connections share. */
  final case class OfStream(scope: ConnectionScope) extends Attributes.Attribute

  def attributes(scope: ConnectionScope): Attributes = Attributes(OfStream(scope))

  /** The scope a stage of a connection's stream was materialised with. */
  def of(attributes: Attributes): ConnectionScope =
    attributes.get[OfStream].map(_.scope).getOrElse(
      throw IllegalStateException("a connection's stream is materialised with ConnectionScope.attributes"))

  def attach(request: HttpRequest, cancellation: Cancellation): HttpRequest = request.addAttribute(Key, cancellation)

  /** The request's cancellation; [[Cancellation.Never]] for a request that did not come through a connection. */
  def cancellationOf(request: HttpRequest): Cancellation = request.attribute(Key).getOrElse(Cancellation.Never)
