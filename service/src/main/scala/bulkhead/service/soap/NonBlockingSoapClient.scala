package bulkhead.service.soap

import bulkhead.service.config.SoapSettings
import bulkhead.service.enrichment.{SoapClient, ThirdPartyCustomer, ThirdPartyFailure}
import org.apache.pekko.actor.typed.ActorSystem
import org.apache.pekko.http.scaladsl.Http
import org.apache.pekko.http.scaladsl.model.*
import org.apache.pekko.http.scaladsl.model.headers.RawHeader
import org.apache.pekko.http.scaladsl.settings.{ClientConnectionSettings, ConnectionPoolSettings}
import org.apache.pekko.pattern.after

import java.util.concurrent.TimeoutException
import scala.concurrent.{ExecutionContext, Future}
import scala.util.control.NonFatal

/**
 * The SOAP client on Pekko HTTP's host connection pool: no thread waits while the third party thinks. `maxInFlight`
 * is the pipeline's admission bound: the pool queues as many calls as it admits.
 */
final class NonBlockingSoapClient(settings: SoapSettings, maxInFlight: Int)(using system: ActorSystem[?])
    extends SoapClient:
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
      // A connection whose answer never comes is closed after this, freeing its pool slot; long enough that warm
      // connections survive a pause in traffic (re-opening thousands at once is a storm that times calls out).
      .withIdleTimeout(settings.connectionIdleTimeout)
    base
      .withMaxConnections(settings.maxConnections)
      // Calls beyond the connections wait in the pool's queue (Pekko wants a power of two). Sized to what the pipeline
      // admits, not to the connections: a queue of 32 in front of 4 connections overflowed as 20 clients started
      // (BufferOverflowException, the breaker opened, 98 % of the answers 5xx; the calls of the warm-up's clients,
      // gone but still queued, are the likely rest), and none did with this size; the pipeline sheds above its bound.
      .withMaxOpenRequests(Integer.highestOneBit((settings.maxConnections max maxInFlight max 32) * 2 - 1))
      .withMaxRetries(0)
      .withConnectionSettings(connection)

  def getCustomer(id: Int): Future[Either[ThirdPartyFailure, ThirdPartyCustomer]] =
    val request = HttpRequest(HttpMethods.POST, uri, List(soapAction),
      HttpEntity(contentType, SoapProtocol.getCustomerRequest(id)))
    val call =
      Http()(classic).singleRequest(request, settings = pool).flatMap { response =>
        response.entity.toStrict(settings.requestTimeout, settings.maxResponseBytes.toLong).map { strict =>
          SoapProtocol.readHttpAnswer(id, response.status.intValue, strict.data.toArrayUnsafe(), xml)
        }
      }
    val deadline = after(settings.requestTimeout)(Future.failed(TimeoutException()))(classic)
    Future.firstCompletedOf(Seq(call, deadline)).recover { case e if !e.isInstanceOf[TimeoutException] =>
      failures.failed(e)
      throw e
    }.recover(NonBlockingSoapClient.failure(settings))

object NonBlockingSoapClient:
  private[soap] def failure(settings: SoapSettings)
      : PartialFunction[Throwable, Either[ThirdPartyFailure, ThirdPartyCustomer]] =
    case _: TimeoutException =>
      Left(ThirdPartyFailure.Timeout(s"no answer from the third party in ${settings.requestTimeout}"))
    case _: EntityStreamSizeException =>
      Left(ThirdPartyFailure.Malformed(s"answer above ${settings.maxResponseBytes} bytes"))
    // Transport messages name classes and addresses: the client gets a fixed sentence (CustomerRoutee), the log this.
    case NonFatal(e) =>
      val msg = Option(e.getMessage).getOrElse("")
      if msg.contains("timeout") || msg.contains("timed out") then
        Left(ThirdPartyFailure.Timeout(
          s"no answer from the third party in ${settings.requestTimeout}: ${msg.take(200)}"))
      else Left(ThirdPartyFailure.Unreachable(s"${e.getClass.getSimpleName}: ${msg.take(200)}"))
