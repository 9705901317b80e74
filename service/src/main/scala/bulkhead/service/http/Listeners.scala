package bulkhead.service.http

import bulkhead.transport.IoLoops
import org.apache.pekko.Done
import org.apache.pekko.stream.scaladsl.Tcp

import java.net.InetSocketAddress
import scala.concurrent.Future
import scala.concurrent.duration.FiniteDuration

/**
 * The service's listeners on one port (SO_REUSEPORT when more than one): one address, terminated together, and the
 * selector threads that carry their connections (none on Pekko's transport).
 */
final class Listeners(val bindings: Seq[Tcp.ServerBinding],
    stop: (Seq[Tcp.ServerBinding], FiniteDuration) => Future[Done], val ioLoops: Option[IoLoops] = None):
  require(bindings.nonEmpty, "at least one listener")

  def localAddress: InetSocketAddress = bindings.head.localAddress

  /** Stops accepting on every listener at once, drains in-flight requests up to `deadline`, closes the connections. */
  def terminate(deadline: FiniteDuration): Future[Done] = stop(bindings, deadline)
