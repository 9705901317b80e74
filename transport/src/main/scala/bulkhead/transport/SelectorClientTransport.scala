package bulkhead.transport

import org.apache.pekko.actor.ActorSystem
import org.apache.pekko.bulkhead.PekkoTcpInternals
import org.apache.pekko.http.scaladsl.settings.ClientConnectionSettings
import org.apache.pekko.http.scaladsl.{ClientTransport, Http}
import org.apache.pekko.stream.scaladsl.{Flow, Keep}
import org.apache.pekko.util.ByteString

import java.net.InetSocketAddress
import scala.concurrent.duration.FiniteDuration
import scala.concurrent.{ExecutionContext, Future}

/**
 * Pekko HTTP's client connections on bulkhead's selector threads instead of Pekko's TCP actors: a request is written
 * by its connection's stream, its answer read by the loop and handed over once. It is `ClientTransport.TCP` otherwise:
 * the connection half-closes, the settings' socket options, local address, connecting timeout and idle timeout
 * (`TcpIdleTimeoutException`) apply, and a host name is resolved by Pekko's DNS extension, without blocking.
 */
final class SelectorClientTransport(loops: IoLoops, readAhead: Int) extends ClientTransport:
  override def connectTo(host: String, port: Int, settings: ClientConnectionSettings)(implicit system: ActorSystem)
      : Flow[ByteString, ByteString, Future[Http.OutgoingConnection]] =
    // As Pekko's: unresolved here, resolved at each connection (a literal address needs no lookup).
    val remote = InetSocketAddress.createUnresolved(host, port)
    val socket = SelectorConnect(loops, remote, settings.connectingTimeout, readAhead, settings.localAddress,
      settings.socketOptions, halfClose = true)
      .mapMaterializedValue(_.map(local => Http.OutgoingConnection(local, remote))(ExecutionContext.parasitic))
    settings.idleTimeout match
      case idle: FiniteDuration => PekkoTcpInternals.idleTimeout(idle, remote).joinMat(socket)(Keep.right)
      case _ => socket
