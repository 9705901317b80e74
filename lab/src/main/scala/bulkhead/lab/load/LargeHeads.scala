package bulkhead.lab.load

import bulkhead.lab.record.{RequestLog, RequestOutcome}

import java.io.{BufferedInputStream, IOException}
import java.net.Socket
import java.nio.charset.StandardCharsets.US_ASCII
import java.util.concurrent.{ConcurrentLinkedQueue, CountDownLatch, Semaphore, TimeUnit}
import java.util.concurrent.atomic.AtomicInteger
import scala.jdk.CollectionConverters.*

/**
 * Connections that each send a request head of `bytes` (GET /hello, padded with headers of at most 8,000 bytes, under
 * Pekko's per-header limits) without the blank line that ends it, and hold it there: what a server keeps of a head
 * in progress, times the connections. `finish` sends each blank line and reads each answer.
 */
final class LargeHeads private (name: String, log: RequestLog) extends HostileLoad:
  private val held = ConcurrentLinkedQueue[(Socket, Long)]()
  private val opened = AtomicInteger()

  def connections: Int = opened.get

  /** Ends every head held, reads its answer, and closes its connection. */
  def finish(): Unit =
    val all = Iterator.continually(held.poll()).takeWhile(_ != null).toSeq
    val done = CountDownLatch(all.size)
    val permits = Semaphore(256)
    all.foreach { (s, start) =>
      permits.acquire()
      ClosedLoopUsers.startThread(s"lab-$name-finish", () =>
        try
          try
            s.getOutputStream.write("\r\n".getBytes(US_ASCII))
            val answer = ClosedLoopUsers.readResponse(BufferedInputStream(s.getInputStream, 4096))
            log.record(name, start, RequestOutcome.Status(answer.status), answer.retryAfter)
          catch case e: IOException => log.record(name, start, HostileLoad.failed(e, false), None)
          finally s.close()
        finally
          permits.release()
          done.countDown())
    }
    done.await(30, TimeUnit.SECONDS)

  /** Finishes the heads still held: each is answered (see [[finish]]). */
  def stop(): Unit = finish()

object LargeHeads:
  /** A head of exactly `bytes` bytes up to, not including, the blank line that ends it. */
  def head(port: Int, bytes: Int): Array[Byte] =
    val sb = StringBuilder(s"GET /hello HTTP/1.1\r\nHost: 127.0.0.1:$port\r\n")
    require(bytes >= sb.length + 64, s"a head of $bytes bytes is too short")
    var i = 0
    // Headers of 8,000-byte values while more than one is left, then one that takes exactly what remains.
    while bytes - sb.length > 8100 do
      sb.append(s"X-Pad-$i: ").append("a" * 8000).append("\r\n")
      i += 1
    val prefix = s"X-Pad-$i: "
    val fill = bytes - sb.length - prefix.length - 2
    sb.append(prefix).append("a" * fill).append("\r\n")
    sb.toString.getBytes(US_ASCII)

  /**
   * Opens `count` connections, each sending a head of `bytes` and holding it (at most 256 being opened at once, at
   * most `perSecond` a second); returns once all are held or failed.
   */
  def hold(name: String, count: Int, port: Int, bytes: Int, log: RequestLog, perSecond: Int = 2000): LargeHeads =
    val heads = LargeHeads(name, log)
    val data = head(port, bytes)
    run(count, perSecond) { () =>
      val start = System.nanoTime()
      try
        val s = HostileLoad.connect(port, 10_000)
        heads.opened.incrementAndGet()
        s.getOutputStream.write(data)
        heads.held.add(s -> start)
      catch case e: IOException => log.record(name, start, HostileLoad.failed(e, false), None)
    }
    heads

  /**
   * `count` connections each sending a whole head of `bytes` (past the server's limit) and reading the answer;
   * returns once each is answered or failed.
   */
  def sendWhole(name: String, count: Int, port: Int, bytes: Int, log: RequestLog): HostileLoad =
    val data = head(port, bytes) ++ "\r\n".getBytes(US_ASCII)
    run(count, 2000) { () =>
      val start = System.nanoTime()
      var s: Socket = null
      try
        s = HostileLoad.connect(port, 10_000)
        s.getOutputStream.write(data)
        val answer = ClosedLoopUsers.readResponse(BufferedInputStream(s.getInputStream, 4096))
        log.record(name, start, RequestOutcome.Status(answer.status), answer.retryAfter)
      catch case e: IOException => log.record(name, start, HostileLoad.failed(e, false), None)
      finally if s != null then s.close()
    }
    new HostileLoad:
      def connections: Int = count
      def stop(): Unit = ()

  private def run(count: Int, perSecond: Int)(one: () => Unit): Unit =
    val permits = Semaphore(256)
    val done = CountDownLatch(count)
    val t0 = System.nanoTime()
    (0 until count).foreach { i =>
      val wait = (t0 + i * 1_000_000_000L / perSecond - System.nanoTime()) / 1_000_000
      if wait > 0 then Thread.sleep(wait)
      permits.acquire()
      ClosedLoopUsers.startThread(s"lab-large-head-$i", () =>
        try one() finally
          permits.release()
          done.countDown())
    }
    done.await(60, TimeUnit.SECONDS)
