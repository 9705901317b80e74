package bulkhead.service.soap

import bulkhead.service.config.SoapSettings
import bulkhead.service.enrichment.{SoapClient, ThirdPartyCustomer, ThirdPartyFailure}

import java.io.IOException
import java.net.URI
import java.net.http.{HttpClient, HttpRequest, HttpResponse, HttpTimeoutException}
import java.util.concurrent.{Executor, RejectedExecutionException}
import scala.concurrent.{Future, Promise}
import scala.util.Using
import scala.util.control.NonFatal

/**
 * A blocking SOAP client, as legacy SOAP stacks are (Camel CXF in the experiment this reproduces): each call holds its
 * thread until the third party answers. Calls run on `executor`, the bounded work queue or virtual threads; a full
 * queue refuses at once.
 */
final class BlockingSoapClient(settings: SoapSettings, executor: Executor, retryAfterMillis: Long)
    extends SoapClient:
  private val xml = SafeXml(settings.maxResponseBytes)
  private val uri = URI.create(settings.endpoint)
  private val http = HttpClient.newBuilder()
    .version(HttpClient.Version.HTTP_1_1)
    .connectTimeout(java.time.Duration.ofMillis(settings.connectTimeout.toMillis))
    .build()

  def getCustomer(id: Int): Future[Either[ThirdPartyFailure, ThirdPartyCustomer]] =
    val promise = Promise[Either[ThirdPartyFailure, ThirdPartyCustomer]]()
    try executor.execute(() => promise.success(callBlocking(id)))
    catch
      case _: RejectedExecutionException =>
        promise.success(Left(ThirdPartyFailure.Refused("SOAP work queue is full", retryAfterMillis)))
    promise.future

  /** One call, holding the current thread until the answer (or the timeout). */
  def callBlocking(id: Int): Either[ThirdPartyFailure, ThirdPartyCustomer] =
    val request = HttpRequest.newBuilder(uri)
      .timeout(java.time.Duration.ofMillis(settings.requestTimeout.toMillis))
      .header("Content-Type", SoapProtocol.ContentType)
      .header("SOAPAction", SoapProtocol.SoapAction)
      .POST(HttpRequest.BodyPublishers.ofByteArray(SoapProtocol.getCustomerRequest(id)))
      .build()
    try
      val response = http.send(request, HttpResponse.BodyHandlers.ofInputStream())
      Using.resource(response.body()) { in =>
        val body = in.readNBytes(settings.maxResponseBytes + 1)
        SoapProtocol.readHttpAnswer(id, response.statusCode(), body, xml)
      }
    catch
      case _: HttpTimeoutException =>
        Left(ThirdPartyFailure.Timeout(s"no answer from the third party in ${settings.requestTimeout}"))
      case _: IOException => Left(ThirdPartyFailure.Unreachable("the connection to the third party failed"))
      case _: InterruptedException =>
        Thread.currentThread().interrupt()
        Left(ThirdPartyFailure.Unreachable("interrupted"))
      case NonFatal(_) => Left(ThirdPartyFailure.Unreachable("the call to the third party failed"))

  // HttpClient is AutoCloseable from JDK 21 on; on 17 its threads end with the JVM.
  override def close(): Unit = (http: Any) match
    case c: AutoCloseable => c.close()
    case _ => ()
