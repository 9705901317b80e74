package bulkhead.service.http

import org.apache.pekko.Done
import org.apache.pekko.http.scaladsl.Http

import java.net.InetSocketAddress
import scala.concurrent.duration.FiniteDuration
import scala.concurrent.{ExecutionContext, Future}

/** The service's listeners on one port (SO_REUSEPORT when more than one): one address, terminated together. */
final class Listeners(val bindings: Seq[Http.ServerBinding]):
  require(bindings.nonEmpty, "at least one listener")

  def localAddress: InetSocketAddress = bindings.head.localAddress

  /** Pekko's graceful termination on every listener at once: stop accepting, drain in-flight requests. */
  def terminate(deadline: FiniteDuration)(using ExecutionContext): Future[Done] =
    Future.sequence(bindings.map(_.terminate(deadline))).map(_ => Done)
