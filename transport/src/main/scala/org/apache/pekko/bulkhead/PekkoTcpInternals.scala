package org.apache.pekko.bulkhead

import org.apache.pekko.actor.ActorRef
import org.apache.pekko.Done
import org.apache.pekko.io.Tcp.Connected
import org.apache.pekko.stream.impl.fusing.GraphStages.detacher
import org.apache.pekko.stream.impl.io.{IncomingConnectionStage, TcpIdleTimeout}
import org.apache.pekko.stream.scaladsl.{BidiFlow, Flow, Tcp}
import org.apache.pekko.util.ByteString
import org.apache.pekko.NotUsed

import java.net.InetSocketAddress
import scala.concurrent.Future
import scala.concurrent.duration.{Duration, FiniteDuration}

/**
 * The parts of Pekko's TCP streams that bulkhead's transport (`bulkhead.transport`) builds but cannot reach from its
 * own package: `Tcp.ServerBinding`'s constructor, Pekko's incoming connection stage and its idle timeout are
 * `private[pekko]`. This object only calls them; it lives in a package of bulkhead's own under `org.apache.pekko`
 * (not one of Pekko's, so no package is split between two jars), and is what to check when Pekko's internals change.
 */
object PekkoTcpInternals:

  /** The binding `Tcp.bind` materialises, for a listener of bulkhead's. */
  def serverBinding(localAddress: InetSocketAddress, unbind: () => Future[Unit], whenUnbound: Future[Done])
      : Tcp.ServerBinding =
    Tcp.ServerBinding(localAddress)(unbind, whenUnbound)

  /**
   * A connection Pekko's listener actor accepted, as `Tcp.bind` hands it downstream: its connection actor behind
   * Pekko's stage, the read-ahead detacher, and the idle timeout when finite. `registered` runs when a stream takes it.
   */
  def incomingConnection(connection: ActorRef, connected: Connected, halfClose: Boolean, idleTimeout: Duration,
      registered: () => Unit): Tcp.IncomingConnection =
    val tcpFlow = Flow.fromGraph(IncomingConnectionStage(connection, connected.remoteAddress, halfClose, registered))
      .via(detacher[ByteString]) // as Pekko's: must read ahead for proper completions
    val handler = idleTimeout match
      case d: FiniteDuration => tcpFlow.join(TcpIdleTimeout(d, Some(connected.remoteAddress)))
      case _ => tcpFlow
    Tcp.IncomingConnection(connected.localAddress, connected.remoteAddress, handler)

  /** Pekko's TCP idle timeout: a connection silent both ways this long fails with `TcpIdleTimeoutException`. */
  def idleTimeout(timeout: FiniteDuration, remote: InetSocketAddress)
      : BidiFlow[ByteString, ByteString, ByteString, ByteString, NotUsed] =
    TcpIdleTimeout(timeout, Some(remote))
