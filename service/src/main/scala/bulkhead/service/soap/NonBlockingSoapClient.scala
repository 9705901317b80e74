package bulkhead.service.soap

import bulkhead.service.config.SoapSettings
import bulkhead.service.enrichment.{SoapClient, ThirdPartyCustomer, ThirdPartyFailure}
import org.apache.pekko.actor.typed.ActorSystem
import org.apache.pekko.http.scaladsl.{ClientTransport, Http}
import org.apache.pekko.http.scaladsl.model.*
import org.apache.pekko.http.scaladsl.model.headers.RawHeader
import org.apache.pekko.http.scaladsl.settings.{ClientConnectionSettings, ConnectionPoolSettings}
import org.apache.pekko.stream.BufferOverflowException
import org.apache.pekko.stream.scaladsl.{Sink, Source}
import org.apache.pekko.util.ByteString

import java.util.concurrent.TimeoutException
import scala.concurrent.duration.*
import scala.concurrent.{ExecutionContext, Future, Promise}
import scala.util.control.NoStackTrace
import scala.util.{Failure, Success}

/**
 * The SOAP client on Pekko HTTP's host connection pool: no thread waits while the third party thinks. It runs behind
 * [[AdmittedSoapClient]], which hands it no more calls than the pool has connections, so a call finds a connection at
 * once rather than waiting in the pool's queue. At its deadline (`request-timeout` from the moment it is handed here) a
 * call is cancelled, not only answered: its connection is closed and its slot in the pool is free for the next call.
 */
final class NonBlockingSoapClient(settings: SoapSettings, retryAfterMillis: Long, transport: ClientTransport)(
    using system: ActorSystem[?]) extends SoapClient:
  private given ExecutionContext = system.executionContext
  private val classic = system.classicSystem
  private val xml = SafeXml(settings.maxResponseBytes)
  private val uri = Uri(settings.endpoint)
  private val contentType = ContentType.parse(SoapProtocol.ContentType).toOption.get
  private val soapAction = RawHeader("SOAPAction", SoapProtocol.SoapAction)
  private val failures = FailureLog(classic.log)

  // Pekko's default pool (4 connections, 32 open requests) would cap 1 s calls at 4 req/s: size it from config.
  private val pool: ConnectionPoolSettings =
    val base = ConnectionPoolSettings(classic)
    val connection = ClientConnectionSettings(classic)
      .withConnectingTimeout(settings.connectTimeout)
      // A connection that stays silent this long is closed. Calls are cancelled at their deadline (below), so this
      // only retires idle keep-alive connections: long enough that warm connections survive a pause in traffic
      // (re-opening thousands at once is a storm that times calls out).
      .withIdleTimeout(settings.connectionIdleTimeout)
    base
      .withMaxConnections(settings.maxConnections)
      // Admission hands the pool at most max-connections calls, so its queue only holds a call for the moment a
      // connection takes to come free after the previous answer (Pekko wants a power of two). An overflow would be
      // a refusal, never a failure of the third party (NonBlockingSoapClient.failure).
      .withMaxOpenRequests(Integer.highestOneBit((settings.maxConnections max 16) * 2 - 1))
      .withMaxRetries(0)
      .withConnectionSettings(connection.withTransport(transport))

  def getCustomer(id: Int): Future[Either[ThirdPartyFailure, ThirdPartyCustomer]] =
    val body = ByteString(SoapProtocol.getCustomerRequest(id))
    // The request's entity stays open (its bytes all sent, its end not yet) until the answer has been read, and fails
    // if the deadline comes first. A failed request entity is how Pekko's pool lets a caller cancel a call: the call
    // fails and its connection closes ("request entity stream failed"), whether the answer's head has come or not, so
    // the connection is free at once. With a strict entity a call whose answer never came held its connection until the
    // connection's idle-timeout (60 s), and the calls after it waited in the pool's queue past their own timeout; one
    // whose body was still trickling in was cut by toStrict's timeout, which cancels the body without closing the
    // connection at once: the pool took the connection for idle, and the next call on it failed or hung.
    val end = Promise[Unit]()
    val entity = HttpEntity.Default(contentType, body.length, Source.fromGraph(OpenEndedBody(body, end.future)))
    val deadline = settings.requestTimeout.fromNow
    val deadlineHeader = RawHeader(SoapProtocol.DeadlineHeader,
      (System.currentTimeMillis() + settings.requestTimeout.toMillis).toString)
    val request = HttpRequest(HttpMethods.POST, uri, List(soapAction, deadlineHeader), entity)
    val answer = Promise[Either[ThirdPartyFailure, ThirdPartyCustomer]]()
    // At the deadline the caller hears of it at once, and the call is cancelled. The timer runs this on the dispatcher,
    // not on the scheduler's thread: the caller's answer starts the next waiting call (AdmittedSoapClient).
    // The call is cancelled first, so that its connection is free for the call its answer lets in.
    val expire: Runnable = () =>
      end.tryFailure(NonBlockingSoapClient.DeadlineCame)
      answer.trySuccess(timedOut)
    val timer = classic.scheduler.scheduleOnce(settings.requestTimeout, expire)
    // optimization: every step below runs on the thread that completes the one before (the host pool's actor, on the
    // dispatcher): saves a dispatcher task per step, each only to translate a value.
    Http()(classic).singleRequest(request, settings = pool).flatMap { response =>
      val limit = settings.maxResponseBytes.toLong
      val length = response.entity.contentLengthOption
      response.entity match
        case _ if length.exists(_ > limit) =>
          // An answer declared too long is refused unread: toStrict would fail without subscribing to its bytes, and
          // the pool would hold the connection a second (subscription-timeout) and log a warning per answer.
          // Cancelling the bytes closes the connection at once (a strict answer has none left to cancel).
          if !response.entity.isStrict then response.entity.dataBytes.runWith(Sink.cancelled)
          Future.failed(EntityStreamSizeException(limit, length))
        // optimization: an answer that came whole with its head (the usual few hundred bytes) is read here, where
        // Pekko HTTP's toStrict(timeout, maxBytes) runs a stream even for a strict entity: a materialisation, a stream
        // actor started and stopped, and a timer, for every answer.
        case strict: HttpEntity.Strict =>
          Future.successful(SoapProtocol.readHttpAnswer(id, response.status.intValue, strict.data.toArrayUnsafe(), xml))
        case streamed =>
          // The deadline ends the body (above); toStrict's own timeout is only a backstop, after it.
          streamed.toStrict(deadline.timeLeft + 1.second, limit).map { strict =>
            SoapProtocol.readHttpAnswer(id, response.status.intValue, strict.data.toArrayUnsafe(), xml)
          }(ExecutionContext.parasitic)
    }(ExecutionContext.parasitic).onComplete { result =>
      timer.cancel()
      end.trySuccess(())
      if !answer.isCompleted then answer.trySuccess(result match
        case Success(a) => a
        case Failure(e) =>
          if !NonBlockingSoapClient.isDeadline(e) then failures.failed(e)
          NonBlockingSoapClient.failure(settings, retryAfterMillis)(e))
    }(ExecutionContext.parasitic)
    answer.future

  private val timedOut = Left(ThirdPartyFailure.Timeout(s"no answer from the third party in ${settings.requestTimeout}"))

object NonBlockingSoapClient:
  /** What fails a cancelled call's request entity: its deadline. */
  private object DeadlineCame extends TimeoutException("the SOAP call's deadline came") with NoStackTrace

  /** Whether a call failed on its deadline: the caller's timer, or the pool failing the call its deadline cancelled. */
  private def isDeadline(e: Throwable): Boolean =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).take(8).exists(_.isInstanceOf[TimeoutException])

  /** What a failed call means to its caller: every failure is an answer (the future itself never fails). */
  private[soap] def failure(settings: SoapSettings, retryAfterMillis: Long)(e: Throwable)
      : Either[ThirdPartyFailure, ThirdPartyCustomer] = e match
    case e if isDeadline(e) =>
      Left(ThirdPartyFailure.Timeout(s"no answer from the third party in ${settings.requestTimeout}"))
    // The pool's queue overflowed: the service is at its cap, the third party is not failing.
    case _: BufferOverflowException =>
      Left(ThirdPartyFailure.Refused("the SOAP client's host pool is full", retryAfterMillis))
    case _: EntityStreamSizeException =>
      Left(ThirdPartyFailure.Malformed(s"answer above ${settings.maxResponseBytes} bytes"))
    // Transport messages name classes and addresses: the client gets a fixed sentence (CustomerRoutee), the log this.
    case e =>
      val msg = Option(e.getMessage).getOrElse("")
      if msg.contains("timeout") || msg.contains("timed out") then
        Left(ThirdPartyFailure.Timeout(
          s"no answer from the third party in ${settings.requestTimeout}: ${msg.take(200)}"))
      else Left(ThirdPartyFailure.Unreachable(s"${e.getClass.getSimpleName}: ${msg.take(200)}"))
