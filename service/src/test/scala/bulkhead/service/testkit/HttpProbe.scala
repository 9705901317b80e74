package bulkhead.service.testkit

import java.net.URI
import java.net.http.{HttpClient, HttpRequest, HttpResponse}
import java.time.Duration
import java.util.concurrent.CompletableFuture

/** A plain JDK HTTP client for tests that talk to a real socket. */
object HttpProbe:
  final case class Reply(status: Int, body: String, headers: Map[String, String])

  private val client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
    .connectTimeout(Duration.ofSeconds(5)).build()

  def getAsync(url: String, timeoutSeconds: Int = 30): CompletableFuture[Reply] =
    val request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(timeoutSeconds)).GET().build()
    client.sendAsync(request, HttpResponse.BodyHandlers.ofString()).thenApply { r =>
      val headers = r.headers().map().keySet().toArray.map(_.toString).map(k => k.toLowerCase ->
        r.headers().firstValue(k).orElse("")).toMap
      Reply(r.statusCode(), r.body(), headers)
    }

  def get(url: String, timeoutSeconds: Int = 30): Reply = getAsync(url, timeoutSeconds).get()

  /** The value of a Prometheus sample line, e.g. `executor_active_threads{name="blocking-pool"}`. */
  def metric(metricsText: String, sample: String): Option[Double] =
    metricsText.linesIterator.find(_.startsWith(sample + " ")).map(_.drop(sample.length + 1).trim.toDouble)

  /** Polls until `cond` holds, at most `tries` times `pauseMs` (a bound, not a timing assertion). */
  def eventually(tries: Int = 200, pauseMs: Long = 50)(cond: => Boolean): Boolean =
    Iterator.range(0, tries).exists { _ =>
      cond || { Thread.sleep(pauseMs); false }
    }
