package bulkhead.service.soap

import bulkhead.service.config.SoapSettings
import bulkhead.service.dispatch.Pools
import bulkhead.service.enrichment.ThirdPartyCustomer

import java.io.IOException
import java.net.URI
import java.net.http.{HttpClient, HttpRequest, HttpResponse, HttpTimeoutException}
import java.util.concurrent.{Executor, RejectedExecutionException}
import org.apache.pekko.actor.Scheduler

import scala.concurrent.{ExecutionContext, Future, Promise}
import scala.util.Using
import scala.util.control.NonFatal

/**
 * A blocking SOAP client, as legacy SOAP stacks are (seed 004's Camel CXF): each call holds its thread until the third
 * party answers. Calls run on `executor`, the bounded work queue or virtual threads; a full queue refuses at once.
 * The JDK client's request timeout ends when the answer's headers arrive, not its body: a third party trickling its
 * body would hold the thread for as long as it likes (an interrupt does not wake a thread reading it). So each call
 * has a deadline of its own (`request-timeout` from the start of the call) that closes the body, which ends the read.
 */
final class BlockingSoapClient(settings: SoapSettings, executor: Executor, retryAfterMillis: Long,
    scheduler: Scheduler) extends SoapClient:
  private val xml = SafeXml(settings.maxResponseBytes)
  private val uri = URI.create(settings.endpoint)
  private val httpThreads = java.util.concurrent.Executors.newFixedThreadPool(2, {
    val counter = java.util.concurrent.atomic.AtomicInteger()
    (task: Runnable) =>
      val t = Thread(task, s"${Pools.SoapHttpClient.configPath}-${counter.incrementAndGet()}")
      t.setDaemon(true)
      t
  })
  private val http = HttpClient.newBuilder()
    .version(HttpClient.Version.HTTP_1_1)
    .executor(httpThreads)
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
    val deadline = CallDeadline()
    val timer = scheduler.scheduleOnce(settings.requestTimeout, () => deadline.expire())(ExecutionContext.parasitic)
    val timeout = Left(ThirdPartyFailure.Timeout(s"no whole answer from the third party in ${settings.requestTimeout}"))
    try
      val response = http.send(request, HttpResponse.BodyHandlers.ofInputStream())
      Using.resource(response.body()) { in =>
        deadline.guard(in)
        val body = in.readNBytes(settings.maxResponseBytes + 1)
        SoapProtocol.readHttpAnswer(id, response.statusCode(), body, xml)
      }
    catch
      case _: HttpTimeoutException => timeout
      case _: IOException if deadline.expired => timeout
      case e: IOException => Left(ThirdPartyFailure.Unreachable(s"${e.getClass.getSimpleName}: ${e.getMessage}"))
      case _: InterruptedException =>
        Thread.currentThread().interrupt()
        Left(ThirdPartyFailure.Unreachable("interrupted"))
      case NonFatal(e) => Left(ThirdPartyFailure.Unreachable(s"${e.getClass.getSimpleName}: ${e.getMessage}"))
    finally timer.cancel()

  // HttpClient.shutdownNow exists from JDK 21 on (close() would wait for a trickled answer); on 17 its threads end
  // with the JVM.
  override def close(): Unit =
    scala.util.Try(classOf[HttpClient].getMethod("shutdownNow").invoke(http))
    httpThreads.shutdownNow()

  /** Closes the answer's body at expiry, which ends a read that waits for its bytes. */
  private final class CallDeadline:
    private var body: Option[java.io.InputStream] = None
    @volatile var expired = false

    def guard(in: java.io.InputStream): Unit = synchronized {
      body = Some(in)
      if expired then in.close()
    }

    def expire(): Unit = synchronized {
      expired = true
      body.foreach(_.close())
    }
