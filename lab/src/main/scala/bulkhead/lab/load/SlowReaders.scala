package bulkhead.lab.load

import bulkhead.lab.record.{RequestLog, RequestOutcome}

import java.io.IOException
import java.net.Socket
import java.nio.charset.StandardCharsets.US_ASCII
import java.util.concurrent.ConcurrentLinkedQueue
import scala.jdk.CollectionConverters.*

/**
 * Clients that ask and never read: each opens a connection with a small receive buffer, sends `pipelined` requests
 * for `path` at once, and reads nothing, so that the answers fill both sockets' buffers and the server has answers it
 * cannot write. Closed at `stop`; their requests count as abandoned (the client gave up on them).
 */
final class SlowReaders private (name: String, log: RequestLog) extends HostileLoad:
  private val held = ConcurrentLinkedQueue[(Socket, Long, Int)]()
  private val opened = java.util.concurrent.atomic.AtomicInteger()

  def connections: Int = opened.get

  def stop(): Unit =
    Iterator.continually(held.poll()).takeWhile(_ != null).foreach { (s, start, requests) =>
      (0 until requests).foreach(_ => log.record(name, start, RequestOutcome.Abandoned, None))
      try s.close() catch case _: IOException => ()
    }

object SlowReaders:
  /** Receive buffer of a slow reader: the kernel's smallest useful one, so its window closes after a few KB. */
  val ReceiveBuffer = 4096

  def start(name: String, count: Int, port: Int, path: String, pipelined: Int, log: RequestLog): SlowReaders =
    val readers = SlowReaders(name, log)
    val requests = (s"GET $path HTTP/1.1\r\nHost: 127.0.0.1:$port\r\n\r\n" * pipelined).getBytes(US_ASCII)
    (0 until count).foreach { _ =>
      val start = System.nanoTime()
      try
        val s = HostileLoad.connect(port, 10_000, Some(ReceiveBuffer))
        readers.opened.incrementAndGet()
        s.getOutputStream.write(requests)
        readers.held.add((s, start, pipelined))
      catch case e: IOException => (0 until pipelined).foreach(_ =>
        log.record(name, start, HostileLoad.failed(e, false), None))
    }
    readers
