package bulkhead.service.soap

import org.apache.pekko.actor.ActorSystem
import org.apache.pekko.http.scaladsl.{ClientTransport, Http}
import org.apache.pekko.http.scaladsl.settings.ClientConnectionSettings
import org.apache.pekko.stream.impl.io.{IoLoops, SelectorConnect}
import org.apache.pekko.stream.scaladsl.{BidiFlow, Flow, Keep}
import org.apache.pekko.util.ByteString

import java.net.InetSocketAddress
import scala.concurrent.{ExecutionContext, Future}

/**
 * The SOAP client's connections on bulkhead's selector threads instead of Pekko's TCP actors: a call's request is
 * written by its connection's stream, its answer read by the loop and handed over once. A host that is not an IP
 * address goes through Pekko's TCP transport, which resolves it without blocking a thread of the stream.
 */
final class SelectorClientTransport(loops: IoLoops, readAhead: Int) extends ClientTransport:
  override def connectTo(host: String, port: Int, settings: ClientConnectionSettings)(implicit system: ActorSystem)
      : Flow[ByteString, ByteString, Future[Http.OutgoingConnection]] =
    if !SelectorClientTransport.isIpLiteral(host) then ClientTransport.TCP.connectTo(host, port, settings)
    else
      val remote = InetSocketAddress(host, port) // a literal: no lookup
      val socket = SelectorConnect(loops, remote, settings.connectingTimeout, readAhead)
        .mapMaterializedValue(_.map(local => Http.OutgoingConnection(local, remote))(ExecutionContext.parasitic))
      settings.idleTimeout match
        // As Pekko's TCP transport: a connection silent this long (both ways) fails and closes.
        case idle: scala.concurrent.duration.FiniteDuration =>
          BidiFlow.bidirectionalIdleTimeout[ByteString, ByteString](idle).joinMat(socket)(Keep.right)
        case _ => socket

object SelectorClientTransport:
  private val Ipv4 = raw"\d{1,3}(\.\d{1,3}){3}".r

  /** An IPv4 address or a (bracketed or bare) IPv6 address: connected to without a name lookup. */
  def isIpLiteral(host: String): Boolean = Ipv4.matches(host) || host.contains(':')
