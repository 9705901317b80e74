package bulkhead.transport

import org.apache.pekko.actor.ActorSystem
import org.apache.pekko.bulkhead.PekkoTcpInternals
import org.apache.pekko.http.scaladsl.settings.ClientConnectionSettings
import org.apache.pekko.http.scaladsl.{ClientTransport, Http}
import org.apache.pekko.stream.scaladsl.{Flow, Keep}
import org.apache.pekko.util.ByteString

import java.net.{InetAddress, InetSocketAddress}
import scala.concurrent.duration.FiniteDuration
import scala.concurrent.{ExecutionContext, Future}

/**
 * Pekko HTTP's client connections on bulkhead's selector threads instead of Pekko's TCP actors: a request is written
 * by its connection's stream, its answer read by the loop and handed over once. It is `ClientTransport.TCP` otherwise:
 * the connection half-closes, the settings' socket options, local address, connecting timeout and idle timeout
 * (`TcpIdleTimeoutException`) apply, and a host name is resolved by Pekko's DNS extension, without blocking (an IP
 * address needs no lookup, nor Pekko's resolver threads).
 *
 * `gatherWrites`: a connection waits two messages of its stream's actor for more bytes before it writes, so that a
 * request Pekko renders in parts (its head, then a streamed entity's bytes) leaves in one write. A client whose
 * requests are strict (rendered whole, in one element) turns it off and each request is written the moment it comes.
 */
final class SelectorClientTransport(loops: IoLoops, readAhead: Int, gatherWrites: Boolean = true)
    extends ClientTransport:
  override def connectTo(host: String, port: Int, settings: ClientConnectionSettings)(implicit system: ActorSystem)
      : Flow[ByteString, ByteString, Future[Http.OutgoingConnection]] =
    // An address is connected to as it is; a name, as Pekko's, is resolved at each connection.
    val remote = SelectorClientTransport.literal(host).fold(InetSocketAddress.createUnresolved(host, port))(
      InetSocketAddress(_, port))
    val socket = SelectorConnect(loops, remote, settings.connectingTimeout, readAhead, settings.localAddress,
      settings.socketOptions, halfClose = true, gatherWrites)
      .mapMaterializedValue(_.map(local => Http.OutgoingConnection(local, remote))(ExecutionContext.parasitic))
    settings.idleTimeout match
      case idle: FiniteDuration => PekkoTcpInternals.idleTimeout(idle, remote).joinMat(socket)(Keep.right)
      case _ => socket

object SelectorClientTransport:
  private val Ipv4 = raw"(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})".r

  /** The address `host` spells, if it is an IPv4 address (each part 0..255) or an IPv6 one; never a lookup. */
  def literal(host: String): Option[InetAddress] = host match
    case Ipv4(parts*) if parts.forall(_.toInt <= 255) =>
      Some(InetAddress.getByAddress(host, parts.map(_.toInt.toByte).toArray))
    case _ if host.contains(':') =>
      // In brackets the JDK takes it as an IPv6 literal and never looks it up; a bad one is no address.
      try Some(InetAddress.getByName(s"[${host.stripPrefix("[").stripSuffix("]")}]"))
      catch case _: java.net.UnknownHostException => None
    case _ => None
