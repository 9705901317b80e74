package bulkhead.service.soap

import bulkhead.service.config.SoapSettings
import bulkhead.service.dispatch.Pools
import bulkhead.service.enrichment.{SoapClient, ThirdPartyCustomer, ThirdPartyFailure}

import java.io.IOException
import java.net.URI
import java.net.http.{HttpClient, HttpRequest, HttpResponse, HttpTimeoutException}
import java.util.concurrent.{Executor, RejectedExecutionException}
import org.apache.pekko.actor.Scheduler

import scala.concurrent.{ExecutionContext, Future, Promise}
import scala.util.Using
import scala.util.control.NonFatal

/**
 * A blocking SOAP client, as legacy SOAP stacks are (Camel CXF in the experiment this reproduces): each call holds its
 * thread until the third party answers. Calls run on `executor`, the bounded work queue or virtual threads, behind
 * [[AdmittedSoapClient]], which admits no more calls than the work queue has threads and bounds the wait for one; a
 * full work queue still refuses at once. A call's `request-timeout` runs from the moment it is handed to this client:
 * at the deadline its caller gets the timeout at once, and a call in progress has its answer's body closed, which ends
 * the read (the JDK client's own timeout ends when the headers arrive, and an interrupt does not wake a thread reading a
 * trickled body); a call whose deadline came before a thread took it is never sent. Each exchange, the time a thread
 * holds the call from sending it to the answer, goes to `exchanges`.
 */
final class BlockingSoapClient(settings: SoapSettings, executor: Executor, retryAfterMillis: Long,
    scheduler: Scheduler, exchanges: ExchangeMeter = ExchangeMeter.Ignored)(using timers: ExecutionContext)
    extends SoapClient:
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

  private val timeout =
    Left(ThirdPartyFailure.Timeout(s"no whole answer from the third party in ${settings.requestTimeout}"))
  private val busy =
    Left(ThirdPartyFailure.Refused(s"no SOAP thread free within ${settings.requestTimeout}", retryAfterMillis))

  def getCustomer(id: Int): Future[Either[ThirdPartyFailure, ThirdPartyCustomer]] =
    val promise = Promise[Either[ThirdPartyFailure, ThirdPartyCustomer]]()
    val call = Call(System.nanoTime() + settings.requestTimeout.toNanos)
    val expiry: Runnable = () => promise.trySuccess(if call.expire() then timeout else busy)
    // On `timers` (the dispatcher), not the scheduler's thread: the caller's answer goes on to start the next waiting
    // call (AdmittedSoapClient), which is no work for the thread that keeps every timer's time.
    val timer = scheduler.scheduleOnce(settings.requestTimeout, expiry)(timers)
    try
      executor.execute { () =>
        if call.start() then
          val start = System.nanoTime()
          val answer = callBlocking(id, call)
          exchanges.record(System.nanoTime() - start)
          promise.trySuccess(answer)
        timer.cancel()
      }
    catch
      case _: RejectedExecutionException =>
        timer.cancel()
        promise.trySuccess(Left(ThirdPartyFailure.Refused("SOAP work queue is full", retryAfterMillis)))
    promise.future

  private def request(id: Int, deadline: Call): HttpRequest =
    val left = (deadline.atNanos - System.nanoTime()).max(1_000_000L)
    HttpRequest.newBuilder(uri)
      .timeout(java.time.Duration.ofNanos(left))
      .header("Content-Type", SoapProtocol.ContentType)
      .header(SoapProtocol.DeadlineHeader, (System.currentTimeMillis() + left / 1_000_000L).toString)
      .header("SOAPAction", SoapProtocol.SoapAction)
      .POST(HttpRequest.BodyPublishers.ofByteArray(SoapProtocol.getCustomerRequest(id)))
      .build()

  /**
   * Sends the call; a call whose connection failed before any answer came (a pooled connection the other side had
   * closed: the JDK client says "closed", and retries only idempotent methods, which a SOAP POST is not) is sent once
   * more on a new connection while its deadline allows. GetCustomer only reads, so a second send is safe.
   */
  private def send(id: Int, deadline: Call): HttpResponse[java.io.InputStream] =
    try http.send(request(id, deadline), HttpResponse.BodyHandlers.ofInputStream())
    catch
      case e: IOException if !BlockingSoapClient.isTimeout(e) && !deadline.passed =>
        http.send(request(id, deadline), HttpResponse.BodyHandlers.ofInputStream())

  /** One call, holding the current thread until the answer or `deadline`. */
  private def callBlocking(id: Int, deadline: Call): Either[ThirdPartyFailure, ThirdPartyCustomer] =
    try
      val response = send(id, deadline)
      Using.resource(response.body()) { in =>
        deadline.guard(in)
        val body = in.readNBytes(settings.maxResponseBytes + 1)
        // A body cut short by the deadline is a timeout, not an unreadable answer.
        if deadline.passed then timeout else SoapProtocol.readHttpAnswer(id, response.statusCode(), body, xml)
      }
    catch
      case e: IOException if BlockingSoapClient.isTimeout(e) || deadline.passed => timeout
      case e: IOException => Left(ThirdPartyFailure.Unreachable(BlockingSoapClient.describe(e)))
      case _: InterruptedException =>
        Thread.currentThread().interrupt()
        Left(ThirdPartyFailure.Unreachable("interrupted"))
      case NonFatal(e) => Left(ThirdPartyFailure.Unreachable(BlockingSoapClient.describe(e)))

  // HttpClient.shutdownNow exists from JDK 21 on (close() would wait for a trickled answer); on 17 its threads end
  // with the JVM.
  override def close(): Unit =
    scala.util.Try(classOf[HttpClient].getMethod("shutdownNow").invoke(http))
    httpThreads.shutdownNow()

  /**
   * One call: queued until a thread starts it, unless its deadline came first; at its deadline the answer's body (if
   * the call has one yet) is closed, which ends a waiting read.
   */
  private final class Call(val atNanos: Long):
    private var started = false
    private var abandoned = false
    private var body: Option[java.io.InputStream] = None
    @volatile private var expired = false

    /**
     * Whether the deadline has come, by the clock or by the timer (which may run a tick late). The JDK client's own
     * timer, set to the same instant, can cancel the exchange just after the headers came, before this call's timer
     * ran: the body then fails with "closed", and the clock says it is a timeout.
     */
    def passed: Boolean = expired || System.nanoTime() - atNanos >= 0

    /** Whether this thread may send the call: its deadline did not come while it was queued. */
    def start(): Boolean = synchronized {
      if !abandoned then started = true
      started
    }

    def guard(in: java.io.InputStream): Unit = synchronized {
      body = Some(in)
      if expired then in.close()
    }

    /** Marks the deadline; whether the call had gone out (a timeout) rather than never left the queue (busy). */
    def expire(): Boolean = synchronized {
      expired = true
      body.foreach(_.close())
      if !started then abandoned = true
      started
    }

object BlockingSoapClient:
  /**
   * Whether a failed call failed on its deadline: the JDK client's timeout, alone or as the cause of the "closed" its
   * answer's body stream throws when the exchange was cancelled while the body was being read.
   */
  def isTimeout(e: Throwable): Boolean =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).take(8).exists(_.isInstanceOf[HttpTimeoutException])

  /** The failure and its cause, for the log: the JDK client's "closed" says nothing without the cause. */
  def describe(e: Throwable): String =
    val head = s"${e.getClass.getSimpleName}: ${e.getMessage}"
    Option(e.getCause).filter(_ ne e).fold(head)(c => s"$head (cause ${c.getClass.getSimpleName}: ${c.getMessage})")
