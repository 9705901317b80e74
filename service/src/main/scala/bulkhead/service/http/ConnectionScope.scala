package bulkhead.service.http

import bulkhead.service.work.{Cancellation, CancellationSignal}
import org.apache.pekko.http.scaladsl.model.{AttributeKey, HttpRequest}
import org.apache.pekko.stream.Attributes

import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicLong

/**
 * The requests of one connection: each gets a [[CancellationSignal]] that the connection fires when the request is
 * abandoned (timed out, or the connection ended: the client went away). The counters let the connection's byte stage
 * tell whether a request head arrived (see [[RequestHeadDeadline]]).
 */
final class ConnectionScope:
  private val open = ConcurrentHashMap.newKeySet[CancellationSignal]()
  @volatile private var ended = false
  private val started = AtomicLong()
  private val answered = AtomicLong()

  /** A request of this connection reached the handler: its signal, already fired if the connection has ended. */
  def requestStarted(): CancellationSignal =
    started.incrementAndGet()
    val signal = CancellationSignal()
    open.add(signal)
    // Checked after the add: either end() sees this signal, or this sees `ended`.
    if ended then signal.cancel()
    signal

  def requestAnswered(signal: CancellationSignal): Unit =
    open.remove(signal)
    answered.incrementAndGet()

  /** Requests that reached the handler so far. */
  def requestsStarted: Long = started.get

  /** True while a request is being handled. */
  def busy: Boolean = answered.get < started.get

  /** The connection ended or its client stopped sending: every request still open is abandoned. */
  def end(): Unit =
    ended = true
    open.forEach(_.cancel())
    open.clear()

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
