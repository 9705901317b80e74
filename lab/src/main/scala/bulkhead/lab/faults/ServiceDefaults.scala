package bulkhead.lab.faults

import com.typesafe.config.{Config, ConfigFactory}

import java.net.URLClassLoader
import java.nio.file.Path
import scala.concurrent.duration.*

/**
 * The settings `./bulkhead serve` ships, read from the reference.conf of the service build the lab starts (its
 * classpath): the faults suite runs the service with them and sizes its faults and its report from them.
 */
final case class ServiceDefaults(maxConnections: Int, refusedConnections: Int, maxInFlight: Int,
    soapTimeout: FiniteDuration, breakerMaxFailures: Int, breakerReset: FiniteDuration,
    requestHeadTimeout: FiniteDuration, idleTimeout: FiniteDuration, requestTimeout: FiniteDuration, workQueue: String,
    maxHeadBytes: Int = 65536, maxHeadBytesInProgress: Long = 256L << 20):
  /** One line for the report. */
  def describe: String =
    s"max-connections $maxConnections (+$refusedConnections answered 503), max-in-flight $maxInFlight, SOAP timeout " +
      s"${soapTimeout.toMillis / 1000.0} s, circuit breaker $breakerMaxFailures failures / reset " +
      s"${breakerReset.toMillis / 1000.0} s, request-head-timeout ${requestHeadTimeout.toSeconds} s, idle-timeout " +
      s"${idleTimeout.toSeconds} s, request-timeout ${requestTimeout.toSeconds} s, max-head-bytes $maxHeadBytes " +
      s"(${maxHeadBytesInProgress >> 20} MiB in progress in all), blocking SOAP work queue $workQueue"

object ServiceDefaults:
  def read(serviceClasspath: String): ServiceDefaults =
    val urls = serviceClasspath.split(java.io.File.pathSeparatorChar).filter(_.nonEmpty)
      .map(p => Path.of(p).toUri.toURL)
    val loader = URLClassLoader(urls, null)
    try of(ConfigFactory.defaultReference(loader))
    finally loader.close()

  def of(c: Config): ServiceDefaults =
    def d(k: String) = c.getDuration(k).toMillis.millis
    val e = "bulkhead.enrichment"
    val s = "bulkhead.service.server"
    ServiceDefaults(
      maxConnections = c.getInt(s"$s.max-connections"),
      refusedConnections = c.getInt(s"$s.refused-connections"),
      maxInFlight = c.getInt(s"$e.max-in-flight"),
      soapTimeout = d(s"$e.soap.request-timeout"),
      breakerMaxFailures = c.getInt(s"$e.soap.circuit-breaker.max-failures"),
      breakerReset = d(s"$e.soap.circuit-breaker.reset-timeout"),
      requestHeadTimeout = d(s"$s.request-head-timeout"),
      idleTimeout = d(s"$s.idle-timeout"),
      requestTimeout = d(s"$s.request-timeout"),
      workQueue = s"${c.getInt(s"$e.soap.work-queue.core")}..${c.getInt(s"$e.soap.work-queue.max")} threads, a call " +
        s"waits at most ${d(s"$e.soap.admission.max-wait").toMillis / 1000.0} s for a thread (admission, " +
        s"${c.getInt(s"$e.soap.admission.queue")} waiting at most)",
      maxHeadBytes = c.getBytes(s"$s.max-head-bytes").toInt,
      maxHeadBytesInProgress = c.getBytes(s"$s.max-head-bytes-in-progress"))
