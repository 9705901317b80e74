package bulkhead.lab.sample

import bulkhead.lab.model.MetricsReading
import bulkhead.lab.process.AnyCertificate

import java.net.URI
import java.net.http.{HttpClient, HttpRequest, HttpResponse}
import scala.concurrent.duration.*
import scala.util.Try

/**
 * A service's Prometheus endpoint (`--metrics URL`: Spring Boot's `/actuator/prometheus`, a Micrometer registry's
 * `/metrics`), scraped over HTTP or HTTPS (`insecure`: any certificate, as the load's). [[check]] is the scrape made
 * before anything starts: an endpoint that does not answer with Prometheus text is refused there, not found empty
 * in every sample.
 */
final class MetricsScrape(val url: String, insecure: Boolean = false, timeout: FiniteDuration = 2.seconds):
  private val client =
    val b = HttpClient.newBuilder().connectTimeout(java.time.Duration.ofMillis(timeout.toMillis))
    (if insecure then b.sslContext(AnyCertificate.context) else b).build()

  /** The endpoint's text, or why there is none. */
  def text(): Either[String, String] =
    Try(client.send(HttpRequest.newBuilder(URI.create(url)).timeout(java.time.Duration.ofMillis(timeout.toMillis))
      .header("Accept", "text/plain").GET().build(), HttpResponse.BodyHandlers.ofString())).toEither
      .left.map(e => s"cannot scrape $url: ${Option(e.getMessage).getOrElse(e.toString)}")
      .flatMap(r => if r.statusCode() == 200 then Right(r.body()) else Left(s"$url answered HTTP ${r.statusCode()}"))

  /** A scrape read; None when this one failed (a busy service may not answer one; the next sample tries again). */
  def reading(): Option[MetricsReading] = text().toOption.map(MetricsReading.parse)

  /** One scrape now: Prometheus text with samples in it, or a line saying why not. */
  def check(): Either[String, Unit] =
    text().flatMap(t => if MetricsReading.lines(t).nonEmpty then Right(())
      else Left(s"$url gave no Prometheus samples (${t.linesIterator.take(1).mkString.take(80)})"))

object MetricsScrape:
  /** An absolute http:// or https:// URL, or why not. */
  def url(u: String): Either[String, String] =
    Try(URI.create(u)).toOption.filter(x => (x.getScheme == "http" || x.getScheme == "https") && x.getHost != null)
      .map(_ => u).toRight(s"--metrics must be an http:// or https:// URL, was '$u'")
