package bulkhead.transport

import java.net.StandardSocketOptions
import java.nio.channels.SocketChannel
import java.util.concurrent.atomic.AtomicInteger
import scala.util.control.NonFatal

/**
 * An accepted socket handed downstream in an `IncomingConnection`: the one stream that materialises the connection's
 * flow claims it; a second materialisation is refused, and a socket that no stream claims by `deadline` (nanoTime) is
 * closed, as Pekko's connection actor closes itself after its `register-timeout`.
 */
private[transport] final class IncomingSocket(val channel: SocketChannel, val deadline: Long):
  private val state = AtomicInteger(IncomingSocket.Waiting)

  /** Whether a stream has claimed it. */
  def claimed: Boolean = state.get == IncomingSocket.Claimed

  /** Claims it for the stream being materialised: Left says why it cannot be. */
  def claim(): Either[String, Unit] =
    if state.compareAndSet(IncomingSocket.Waiting, IncomingSocket.Claimed) then Right(())
    else if state.get == IncomingSocket.Claimed then Left("Cannot materialize an incoming connection Flow twice.")
    else Left("no stream took it in time (the register timeout): it was closed")

  /** Aborts the socket (RST, as Pekko's connection actor when it stops) unless a stream claimed it. */
  def expire(): Unit =
    if state.compareAndSet(IncomingSocket.Waiting, IncomingSocket.Expired) then
      try channel.setOption(StandardSocketOptions.SO_LINGER, Integer.valueOf(0))
      catch case NonFatal(_) => ()
      try channel.close()
      catch case NonFatal(_) => ()

private[transport] object IncomingSocket:
  private val Waiting = 0
  private val Claimed = 1
  private val Expired = 2
