package bulkhead.service.metrics

import java.nio.file.{Files, Path}
import scala.util.Using
import scala.jdk.CollectionConverters.*

/**
 * Established TCP connections whose local port is the service's, read from /proc/net/tcp and tcp6 (Linux). What
 * seed 003 printed by hand; Pekko HTTP's `bind` has no per-connection hook, and the connection-source API that has
 * one loses graceful termination. -1 where /proc is absent.
 */
object OpenConnections:
  private val Established = "01"

  def count(port: Int): Int =
    val files = Seq(Path.of("/proc/net/tcp"), Path.of("/proc/net/tcp6")).filter(Files.isReadable)
    if files.isEmpty then -1
    else
      val hexPort = f":$port%04X"
      files.map { f =>
        Using.resource(Files.lines(f))(_.iterator().asScala.drop(1).count(line => matches(line, hexPort)))
      }.sum

  private def matches(line: String, hexPort: String): Boolean =
    val fields = line.trim.split("\\s+")
    fields.length > 3 && fields(1).endsWith(hexPort) && fields(3) == Established
