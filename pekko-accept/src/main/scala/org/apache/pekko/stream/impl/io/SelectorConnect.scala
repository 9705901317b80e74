package org.apache.pekko.stream.impl.io

import org.apache.pekko.stream.scaladsl.Flow
import org.apache.pekko.util.ByteString

import java.net.{InetSocketAddress, StandardSocketOptions}
import java.nio.channels.SocketChannel
import scala.concurrent.Future
import scala.concurrent.duration.FiniteDuration

/**
 * An outgoing connection carried by bulkhead's selector threads ([[IoLoops]]): `Tcp().outgoingConnection` without
 * Pekko's TCP actors, for a client whose every call is a write and a read (a connection pool's). The address must be
 * resolved already: resolving a name blocks, and this runs on the stream's thread.
 */
object SelectorConnect:

  /** A flow that connects at each materialisation; it materialises its local address once connected. */
  def apply(loops: IoLoops, remote: InetSocketAddress, connectTimeout: FiniteDuration, readAhead: Int)
      : Flow[ByteString, ByteString, Future[InetSocketAddress]] =
    require(!remote.isUnresolved, s"$remote must be resolved")
    val open = () =>
      val channel = SocketChannel.open()
      channel.configureBlocking(false)
      channel.setOption(StandardSocketOptions.TCP_NODELAY, java.lang.Boolean.TRUE)
      channel
    Flow.fromGraph(SelectorConnectionStage(open, loops.next(), remote, halfClose = false, readAhead,
      Some(connectTimeout)))
