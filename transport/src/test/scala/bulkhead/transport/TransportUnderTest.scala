package bulkhead.transport

import org.apache.pekko.actor.ActorSystem
import org.apache.pekko.http.scaladsl.ClientTransport
import org.apache.pekko.stream.scaladsl.{Flow, Source, Tcp}
import org.apache.pekko.util.ByteString

import java.net.InetSocketAddress
import scala.concurrent.duration.*
import scala.concurrent.{ExecutionContext, Future}

/** A TCP transport the same cases run against: bulkhead's selector threads, or Pekko's TCP actors. */
trait TransportUnderTest:
  def name: String
  /** A listener, `batch` connections accepted at a time; an accepted flow not materialised in 1 s is closed. */
  def bind(halfClose: Boolean, batch: Int = 1, port: Int = 0)(using ActorSystem)
      : Source[Tcp.IncomingConnection, Future[Tcp.ServerBinding]]
  /** An outgoing connection; materialises its local address. */
  def outgoing(remote: InetSocketAddress, halfClose: Boolean = true, connectTimeout: FiniteDuration = 5.seconds)(
      using ActorSystem): Flow[ByteString, ByteString, Future[InetSocketAddress]]
  /** Pekko HTTP's client connections on this transport. */
  def clientTransport: ClientTransport
  /** Connections the listener accepts beyond downstream's demand. */
  def heldBeyondDemand(batch: Int): Int
  def shutdown(): Unit

object TransportUnderTest:
  /** What the specs' actor systems set: Pekko's register timeout as short as the selector's in [[Selector]]. */
  val Config: String = """
    pekko.loglevel = "ERROR"
    pekko.io.tcp.register-timeout = 1s
    pekko.stream.materializer.subscription-timeout.timeout = 2s
    """

  /** bulkhead's selector threads: two loops, connections read 64 KiB ahead. */
  final class Selector(onError: (String, Throwable) => Unit) extends TransportUnderTest:
    val loops = IoLoops("transport-spec-io", 2, 64 * 1024, onError, (thread, e) => onError(s"$thread died", e))
    def name = "the selector transport"
    def bind(halfClose: Boolean, batch: Int, port: Int)(using ActorSystem) =
      SelectorBindSource.bind(loops, "127.0.0.1", port, backlog = 1024, options = Nil, halfClose = halfClose,
        batch = batch, readAhead = 64 * 1024, registerTimeout = 1.second)
    def outgoing(remote: InetSocketAddress, halfClose: Boolean, connectTimeout: FiniteDuration)(using ActorSystem) =
      SelectorConnect(loops, remote, connectTimeout, 64 * 1024, halfClose = halfClose)
    val clientTransport: ClientTransport = SelectorClientTransport(loops, 64 * 1024)
    def heldBeyondDemand(batch: Int): Int = batch
    def shutdown(): Unit = loops.shutdown()

  /** Pekko's TCP actors: `Tcp().bind` (one connection per pull) and `Tcp().outgoingConnection`. */
  object Pekko extends TransportUnderTest:
    def name = "Pekko's transport"
    def bind(halfClose: Boolean, batch: Int, port: Int)(using system: ActorSystem) =
      require(batch == 1, "Pekko's own bind accepts one connection per pull")
      Tcp(system).bind("127.0.0.1", port, backlog = 1024, halfClose = halfClose)
    def outgoing(remote: InetSocketAddress, halfClose: Boolean, connectTimeout: FiniteDuration)(
        using system: ActorSystem) =
      Tcp(system).outgoingConnection(remote, halfClose = halfClose, connectTimeout = connectTimeout)
        .mapMaterializedValue(_.map(_.localAddress)(ExecutionContext.parasitic))
    val clientTransport: ClientTransport = ClientTransport.TCP
    def heldBeyondDemand(batch: Int): Int = 0
    def shutdown(): Unit = ()
