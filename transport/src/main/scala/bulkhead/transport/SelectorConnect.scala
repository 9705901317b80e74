package bulkhead.transport

import org.apache.pekko.io.Inet.SocketOption
import org.apache.pekko.stream.scaladsl.Flow
import org.apache.pekko.util.ByteString

import java.net.InetSocketAddress
import scala.concurrent.Future
import scala.concurrent.duration.FiniteDuration

/**
 * An outgoing connection carried by bulkhead's selector threads ([[IoLoops]]): `Tcp().outgoingConnection` without
 * Pekko's TCP actors. As Pekko's: `remote` may be a name (`InetSocketAddress.createUnresolved`), resolved at each
 * connection by Pekko's DNS extension without blocking the stream; `halfClose` (Pekko's default) shuts only the
 * writing side when the stream's input completes and reads the peer's answer to its end; `options` are applied before
 * the connect and once connected; `localAddress` binds the socket first; `gatherWrites` as in
 * [[SelectorClientTransport]].
 */
object SelectorConnect:

  /** A flow that connects at each materialisation; it materialises its local address once connected. */
  def apply(loops: IoLoops, remote: InetSocketAddress, connectTimeout: FiniteDuration, readAhead: Int,
      localAddress: Option[InetSocketAddress] = None, options: Iterable[SocketOption] = Nil,
      halfClose: Boolean = true, gatherWrites: Boolean = true)
      : Flow[ByteString, ByteString, Future[InetSocketAddress]] =
    val endpoint = SelectorConnectionStage.Outgoing(remote, localAddress, options.toList, connectTimeout, gatherWrites)
    Flow.fromGraph(SelectorConnectionStage(endpoint, loops.next(), loops.writeBuffers, halfClose, readAhead))
