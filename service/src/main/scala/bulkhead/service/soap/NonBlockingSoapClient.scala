package bulkhead.service.soap

import bulkhead.service.config.SoapSettings
import bulkhead.service.enrichment.{SoapClient, ThirdPartyCustomer, ThirdPartyFailure}
import org.apache.pekko.actor.typed.ActorSystem
import org.apache.pekko.http.scaladsl.{ClientTransport, Http}
import org.apache.pekko.http.scaladsl.model.*
import org.apache.pekko.http.scaladsl.model.headers.RawHeader
import org.apache.pekko.http.scaladsl.settings.ClientConnectionSettings
import org.apache.pekko.util.ByteString

import java.util.concurrent.TimeoutException
import java.util.concurrent.atomic.AtomicBoolean
import scala.concurrent.duration.*
import scala.concurrent.{ExecutionContext, Future, Promise}
import scala.util.control.{NoStackTrace, NonFatal}
import scala.util.{Failure, Success}

/**
 * The SOAP client on connections of its own ([[SoapConnections]], Pekko HTTP's client connection flow on the configured
 * transport): no thread waits while the third party thinks. It runs behind [[AdmittedSoapClient]], which hands it no
 * more calls than max-connections, so a call finds a connection at once. At its deadline (`request-timeout` from the
 * moment it is handed here) a call is cancelled, not only answered: its connection is aborted, so neither the call nor
 * an answer still on its way holds anything, and the next call opens a new connection.
 */
final class NonBlockingSoapClient(settings: SoapSettings, transport: ClientTransport)(
    using system: ActorSystem[?]) extends SoapClient:
  private given ExecutionContext = system.executionContext
  private val classic = system.classicSystem
  private val xml = SafeXml(settings.maxResponseBytes)
  private val uri = Uri(settings.endpoint)
  private val target = uri.toRelative
  private val contentType = ContentType.parse(SoapProtocol.ContentType).toOption.get
  private val soapAction = RawHeader("SOAPAction", SoapProtocol.SoapAction)
  private val failures = FailureLog(classic.log)

  private val connections = SoapConnections(uri.authority.host.address, uri.effectivePort,
    ClientConnectionSettings(classic)
      .withConnectingTimeout(settings.connectTimeout)
      // A connection that stays silent this long is closed. Calls are cancelled at their deadline (below), so this
      // only retires idle keep-alive connections: long enough that warm connections survive a pause in traffic
      // (re-opening thousands at once is a storm that times calls out).
      .withIdleTimeout(settings.connectionIdleTimeout)
      .withTransport(transport))

  /** Connections to the third party open now. */
  def openConnections: Int = connections.open

  def getCustomer(id: Int): Future[Either[ThirdPartyFailure, ThirdPartyCustomer]] =
    val entity = HttpEntity.Strict(contentType, ByteString(SoapProtocol.getCustomerRequest(id)))
    val deadline = settings.requestTimeout.fromNow
    val deadlineHeader = RawHeader(SoapProtocol.DeadlineHeader,
      (System.currentTimeMillis() + settings.requestTimeout.toMillis).toString)
    val request = HttpRequest(HttpMethods.POST, target, List(soapAction, deadlineHeader), entity)
    val answer = Promise[Either[ThirdPartyFailure, ThirdPartyCustomer]]()
    // A connection that cannot even be set up (the system shutting down) is a failed call, as every failure here.
    val connection =
      try connections.acquire()
      catch case NonFatal(e) => return Future.successful(NonBlockingSoapClient.failure(settings)(e))
    // At the deadline the call is cancelled (its connection aborted), then its caller hears of it. The timer runs this
    // on the dispatcher, not on the scheduler's thread: the caller's answer starts the next waiting call
    // (AdmittedSoapClient).
    // Whoever settles the call first, the deadline or the answer, alone decides what becomes of its connection: an
    // answer read just as the deadline came may have given the connection to the next call already.
    val settled = AtomicBoolean()
    val expire: Runnable = () =>
      if settled.compareAndSet(false, true) then
        connection.abort(NonBlockingSoapClient.DeadlineCame)
        answer.trySuccess(timedOut)
    val timer = classic.scheduler.scheduleOnce(settings.requestTimeout, expire)
    // optimization: every step below runs on the thread that completes the one before (the connection's stream, on
    // the dispatcher): saves a dispatcher task per step, each only to translate a value.
    connection.send(request).flatMap { response =>
      val limit = settings.maxResponseBytes.toLong
      val length = response.entity.contentLengthOption
      response.entity match
        // An answer declared too long is refused unread (its connection is aborted below, its bytes with it).
        case _ if length.exists(_ > limit) => Future.failed(EntityStreamSizeException(limit, length))
        // optimization: an answer that came whole with its head (the usual few hundred bytes) is read here, where
        // Pekko HTTP's toStrict(timeout, maxBytes) runs a stream even for a strict entity: a materialisation, a stream
        // actor started and stopped, and a timer, for every answer.
        case strict: HttpEntity.Strict =>
          Future.successful(SoapProtocol.readHttpAnswer(id, response.status.intValue, strict.data.toArrayUnsafe(), xml))
        case streamed =>
          // The deadline aborts the connection, and the body with it; toStrict's own timeout is only a backstop.
          streamed.toStrict(deadline.timeLeft + 1.second, limit).map { strict =>
            SoapProtocol.readHttpAnswer(id, response.status.intValue, strict.data.toArrayUnsafe(), xml)
          }(ExecutionContext.parasitic)
    }(ExecutionContext.parasitic).onComplete { result =>
      timer.cancel()
      if settled.compareAndSet(false, true) then
        result match
          // The answer was read whole: the connection carries the next call.
          case Success(_) => connections.release(connection)
          // Whatever is left on it (an unread body, a half-parsed answer) must not reach the next call.
          case Failure(e) => connection.abort(e)
        answer.trySuccess(result match
          case Success(a) => a
          case Failure(e) =>
            if !NonBlockingSoapClient.isDeadline(e) then failures.failed(e)
            NonBlockingSoapClient.failure(settings)(e))
    }(ExecutionContext.parasitic)
    answer.future

  override def close(): Unit = connections.close()

  private val timedOut =
    Left(ThirdPartyFailure.Timeout(s"no answer from the third party in ${settings.requestTimeout}"))

object NonBlockingSoapClient:
  /** What aborts a cancelled call's connection: its deadline. */
  private object DeadlineCame extends TimeoutException("the SOAP call's deadline came") with NoStackTrace

  /** Whether a call failed on its deadline, or on a timeout of its connection (connecting, or toStrict's backstop). */
  private def isDeadline(e: Throwable): Boolean =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).take(8).exists(_.isInstanceOf[TimeoutException])

  /** What a failed call means to its caller: every failure is an answer (the future itself never fails). */
  private def failure(settings: SoapSettings)(e: Throwable)
      : Either[ThirdPartyFailure, ThirdPartyCustomer] = e match
    case e if isDeadline(e) =>
      Left(ThirdPartyFailure.Timeout(s"no answer from the third party in ${settings.requestTimeout}"))
    case _: EntityStreamSizeException =>
      Left(ThirdPartyFailure.Malformed(s"answer above ${settings.maxResponseBytes} bytes"))
    // Transport messages name classes and addresses: the client gets a fixed sentence (CustomerRoutee), the log this.
    case e =>
      val msg = Option(e.getMessage).getOrElse("")
      if msg.contains("timeout") || msg.contains("timed out") then
        Left(ThirdPartyFailure.Timeout(
          s"no answer from the third party in ${settings.requestTimeout}: ${msg.take(200)}"))
      else Left(ThirdPartyFailure.Unreachable(s"${e.getClass.getSimpleName}: ${msg.take(200)}"))
