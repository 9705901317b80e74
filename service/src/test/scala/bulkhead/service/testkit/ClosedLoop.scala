package bulkhead.service.testkit

import java.net.URI
import java.net.http.{HttpClient, HttpRequest, HttpResponse}
import java.time.Duration
import java.util.concurrent.ConcurrentLinkedQueue
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*

/**
 * Users in a closed loop on one URL for a bounded time, as wrk runs them: each sends its next request as soon as its
 * last one is answered (no pause, Retry-After ignored), and sends none once `duration` has passed. Every request is
 * recorded: when it was sent (from the start), its status (-1 when it got none), its time, its Retry-After and its body.
 */
final class ClosedLoop private (url: String, users: Int, duration: FiniteDuration, timeout: FiniteDuration):
  import ClosedLoop.Reply
  private val client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
    .connectTimeout(Duration.ofSeconds(5)).build()
  private val replies = ConcurrentLinkedQueue[Reply]()
  private val request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofMillis(timeout.toMillis)).GET().build()
  private val begin = System.nanoTime()
  private val end = begin + duration.toNanos

  private val threads = (1 to users).map { i =>
    val t = Thread(() => while System.nanoTime() < end do replies.add(one()), s"closed-loop-user-$i")
    t.setDaemon(true)
    t
  }
  threads.foreach(_.start())

  private def one(): Reply =
    val start = System.nanoTime()
    try
      val r = client.send(request, HttpResponse.BodyHandlers.ofString())
      Reply((start - begin).nanos, r.statusCode(), (System.nanoTime() - start).nanos,
        Option(r.headers().firstValue("Retry-After").orElse(null)), r.body())
    catch
      case e: java.io.IOException => Reply((start - begin).nanos, -1, (System.nanoTime() - start).nanos, None, e.toString)

  /** Waits for the last requests (at most `timeout` after the end) and returns every reply. */
  def await(): Seq[Reply] =
    val deadline = end + timeout.toNanos + 5_000_000_000L
    threads.foreach(t => t.join(((deadline - System.nanoTime()) / 1_000_000L).max(1L)))
    require(threads.forall(!_.isAlive), "a closed-loop user did not finish in time")
    replies.asScala.toSeq

object ClosedLoop:
  final case class Reply(sentAt: FiniteDuration, status: Int, time: FiniteDuration, retryAfter: Option[String],
      body: String)

  /** Starts `users` users on `url` for `duration`; `timeout` bounds each request. */
  def start(url: String, users: Int, duration: FiniteDuration, timeout: FiniteDuration): ClosedLoop =
    ClosedLoop(url, users, duration, timeout)
