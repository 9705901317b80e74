package bulkhead.transport

import java.lang.management.ManagementFactory
import java.nio.file.{Files, Path}
import scala.jdk.CollectionConverters.*
import scala.util.Using

/** What the kernel says about this process and its sockets (Linux /proc): descriptors, accept queues, thread CPU. */
object OsProbes:
  /** Descriptors this process has open now. */
  def openDescriptors(): Int = Using.resource(Files.list(Path.of("/proc/self/fd")))(_.count().toInt)

  /** Whether `cond` holds within `seconds`, tried every 20 ms. */
  def within(seconds: Double)(cond: => Boolean): Boolean =
    val deadline = System.nanoTime() + (seconds * 1e9).toLong
    var ok = cond
    while !ok && System.nanoTime() < deadline do
      Thread.sleep(20)
      ok = cond
    ok

  /**
   * Connections in the kernel's accept queue of the listener on `port`, not yet accepted: a listening socket's
   * rx_queue in /proc/net/tcp6 (the JDK's sockets are IPv6, also on 127.0.0.1) or /proc/net/tcp; -1 if none listens.
   */
  def acceptQueue(port: Int): Int =
    val lines = Seq("/proc/net/tcp6", "/proc/net/tcp").map(Path.of(_)).filter(Files.isReadable)
      .flatMap(p => Files.readAllLines(p).asScala.drop(1))
    lines.map(_.trim.split("\\s+")).find(f => f(1).endsWith(f":${port}%04X") && f(3) == "0A")
      .map(f => Integer.parseInt(f(4).split(':')(1), 16)).getOrElse(-1)

  /** Bytes received and not yet read on the established connections whose local port is `port` (/proc/net/tcp). */
  def unreadBytes(port: Int): Int =
    val lines = Seq("/proc/net/tcp6", "/proc/net/tcp").map(Path.of(_)).filter(Files.isReadable)
      .flatMap(p => Files.readAllLines(p).asScala.drop(1))
    lines.map(_.trim.split("\\s+")).filter(f => f(1).endsWith(f":${port}%04X") && f(3) == "01")
      .map(f => Integer.parseInt(f(4).split(':')(1), 16)).sum

  /** CPU time the thread named `name` has used, in nanoseconds (-1 if there is no such thread). */
  def threadCpuNanos(name: String): Long =
    val threads = ManagementFactory.getThreadMXBean
    Thread.getAllStackTraces.keySet.asScala.find(_.getName == name)
      .map(t => threads.getThreadCpuTime(t.getId)).getOrElse(-1L)
