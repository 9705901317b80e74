package bulkhead.service.testkit

import java.io.IOException
import java.net.InetSocketAddress
import java.nio.ByteBuffer
import java.nio.channels.SocketChannel
import java.nio.charset.StandardCharsets.US_ASCII
import scala.collection.mutable.ArrayBuffer

/**
 * Connections that each send a request head of about `headBytes` without the blank line that ends it, and hold it:
 * what a server keeps of a head in progress, times the connections (the lab's large-heads case). Opened and written
 * from the caller's thread without blocking it, so that a server that stops reading cannot hang the caller.
 */
final class HeldHeads(port: Int, headBytes: Int) extends AutoCloseable:
  private val head = HeldHeads.head(port, headBytes)
  private val channels = ArrayBuffer[(SocketChannel, ByteBuffer)]()
  private var failures = 0

  /** Connections opened so far (held or since failed). */
  def opened: Int = channels.size

  /** Connections whose connect or write failed (the server closed or reset them, or was gone). */
  def failed: Int = failures

  /** Bytes of heads the server has taken so far. */
  def bytesSent: Long = channels.iterator.map(_._2.position().toLong).sum

  /**
   * Opens up to `perSecond` connections a second, each writing what its socket takes, until `done` holds, `most`
   * connections are open and their heads all sent, or `seconds` have passed (a bound: the caller asserts what held).
   */
  def flood(most: Int, perSecond: Int, seconds: Int)(done: => Boolean): Unit =
    val start = System.nanoTime()
    val deadline = start + seconds * 1_000_000_000L
    def unsent = channels.exists((c, b) => c.isOpen && b.hasRemaining)
    while !done && System.nanoTime() < deadline && (channels.size < most || unsent) do
      val due = math.min(most, ((System.nanoTime() - start) * perSecond / 1_000_000_000L).toInt + 1)
      while channels.size < due do
        val channel = SocketChannel.open()
        channel.configureBlocking(false)
        channels += channel -> head.duplicate()
        try channel.connect(InetSocketAddress("127.0.0.1", port))
        catch case _: IOException => fail(channel)
      channels.foreach((channel, bytes) =>
        if channel.isOpen && bytes.hasRemaining then
          try if channel.finishConnect() then channel.write(bytes)
          catch case _: IOException => fail(channel))
      Thread.sleep(5)

  private def fail(channel: SocketChannel): Unit =
    failures += 1
    channel.close()

  def close(): Unit = channels.foreach((channel, _) => channel.close())

object HeldHeads:
  /**
   * GET /hello with headers of 8,000-byte values (under Pekko's 8 KiB a value and 64 a head) up to about `bytes`,
   * not ended.
   */
  def head(port: Int, bytes: Int): ByteBuffer =
    val sb = StringBuilder(s"GET /hello HTTP/1.1\r\nHost: 127.0.0.1:$port\r\n")
    var i = 0
    while sb.length + 8020 <= bytes do
      sb.append(s"X-Pad-$i: ").append("a" * 8000).append("\r\n")
      i += 1
    ByteBuffer.wrap(sb.toString.getBytes(US_ASCII)).asReadOnlyBuffer()
