package bulkhead.service.http.internal

import org.apache.pekko.io.Inet

import java.net.{ServerSocket, StandardSocketOptions}

/**
 * SO_REUSEPORT on a listening socket, set before bind: several listeners on one port, the kernel spreading new
 * connections between them. Pekko's `bind` accepts one connection per round trip through its actors
 * (ResumeAccepting(1)); each listener is such a chain with its own kernel backlog.
 */
private[http] object ReusePort extends Inet.AbstractSocketOption:
  def supported: Boolean =
    try
      val probe = ServerSocket()
      try probe.supportedOptions().contains(StandardSocketOptions.SO_REUSEPORT)
      finally probe.close()
    catch case _: Exception => false

  override def beforeServerSocketBind(ss: ServerSocket): Unit =
    ss.setOption(StandardSocketOptions.SO_REUSEPORT, java.lang.Boolean.TRUE)
