package bulkhead.lab.load

import bulkhead.lab.model.LoadFigures
import bulkhead.lab.record.RequestLog

import java.net.URI
import java.nio.file.Path
import scala.concurrent.duration.*

/**
 * The lab's own closed loop in its JVM ([[ClosedLoopUsers]]): `connections` users on keep-alive connections, each
 * sending the next request when the answer came, for `duration`; a request without an answer after `timeout` is a
 * timeout. What the lab loads with where wrk is not installed: no tool to install, every request recorded.
 */
final class UsersDriver(connections: Int, duration: FiniteDuration, timeout: FiniteDuration) extends LoadDriver:
  def concurrency: Int = connections
  def measuredSeconds: Double = duration.toMillis / 1000.0

  def describe(url: String): String =
    s"the lab's closed-loop users: $connections connections for ${duration.toSeconds} s, GET $url"

  def run(url: String, dir: Path): Either[String, LoadFigures] =
    LoadDriver.requireLoopback(url)
    val uri = URI(url)
    val port = if uri.getPort > 0 then uri.getPort else 80
    val path = Option(uri.getRawPath).filter(_.nonEmpty).getOrElse("/") + Option(uri.getRawQuery).fold("")("?" + _)
    val log = RequestLog()
    val users = ClosedLoopUsers.start(UserGroup("users", connections, port, _ => path, readTimeout = timeout), log)
    Thread.sleep(duration.toMillis)
    val end = (System.nanoTime() - log.t0Nanos) / 1e9
    users.stop()
    Right(ClosedLoopUsers.figures(log.all, connections, 0.0, end, describe(url)))
