package bulkhead.transport

import org.apache.pekko.util.ByteString

import java.io.IOException
import java.net.{InetAddress, InetSocketAddress, ServerSocket, Socket, SocketTimeoutException}

/**
 * The other end of a connection under test, on the JDK's plain blocking sockets (what Pekko's TcpSpec does with a raw
 * `IO(Tcp)` actor): it writes, reads, shuts its writing side (Pekko's `ConfirmedClose`), aborts (RST), and tells how
 * the transport closed its side.
 */
final class RawConnection(val socket: Socket):
  socket.setSoTimeout(5000)
  private val in = socket.getInputStream
  private val out = socket.getOutputStream

  def write(bytes: ByteString): Unit = out.write(bytes.toArray)
  /** Exactly `n` bytes, or what came before the end. */
  def read(n: Int): ByteString = ByteString(in.readNBytes(n))
  /** Shuts the writing side (FIN); reading goes on. */
  def closeWrite(): Unit = socket.shutdownOutput()
  /** Resets the connection (SO_LINGER 0, then close). */
  def abort(): Unit =
    socket.setSoLinger(true, 0)
    socket.close()
  def close(): Unit = socket.close()

  /** The transport ended its sending (FIN): the next read finds the end of the stream. */
  def expectEnd(): Boolean = in.read() == -1

  /** The transport closed the connection, gracefully (FIN) or not (RST). */
  def expectClosed(): Boolean =
    try in.read() == -1
    catch case _: IOException => true

  /**
   * The transport closed the whole socket: a write or a read here fails with a reset (what Pekko's TcpSpec checks
   * as an error close, writing until the write fails). False if it is still open after `seconds`.
   */
  def expectReset(seconds: Double = 5): Boolean =
    socket.setSoTimeout(50)
    val deadline = System.nanoTime() + (seconds * 1e9).toLong
    try
      var reset = false
      while !reset && System.nanoTime() < deadline do
        try
          out.write(1)
          if in.read() == -1 then Thread.sleep(20) // the end of its bytes, read at once: not a reset yet
        catch
          case _: SocketTimeoutException => ()
          case _: IOException => reset = true
      reset
    finally if !socket.isClosed then socket.setSoTimeout(5000)

/** A listening plain socket that accepts when asked. */
final class RawServer(backlog: Int = 50):
  val server = ServerSocket(0, backlog, InetAddress.getLoopbackAddress)
  server.setSoTimeout(10000)
  def address: InetSocketAddress = InetSocketAddress("127.0.0.1", server.getLocalPort)
  def accept(): RawConnection = RawConnection(server.accept())
  def close(): Unit = server.close()

object RawConnection:
  /** A plain client connected to `port` on loopback. */
  def to(port: Int): RawConnection =
    val socket = Socket()
    socket.connect(InetSocketAddress("127.0.0.1", port), 5000)
    RawConnection(socket)
