package bulkhead.service

import bulkhead.service.config.{ServiceCommandLine, ServiceSettings, SocketTransport}
import bulkhead.service.http.HttpServer
import com.sun.management.HotSpotDiagnosticMXBean

import java.lang.management.ManagementFactory
import scala.util.Try

/**
 * Whether the heap can hold what clients may make the service hold at once. The largest part a client controls is
 * request heads in progress: Pekko's parser holds a head's bytes and the headers parsed from them until the head
 * ends, 2.1-2.3 times its bytes, and at most `max-head-bytes-in-progress` of them on every connection together (256 MiB
 * with the shipped settings, below max-connections x max-head-bytes, 1 GiB); beside them, the state Pekko keeps for
 * each connection, the bytes each connection's transport reads ahead of the HTTP layer (what a client that sends what
 * the service does not take makes it hold) and the service's own working set. A heap short of that is an OutOfMemoryError waiting for a few
 * thousand hostile clients, so `serve` refuses to start instead, naming the settings to lower; the launcher gives
 * `serve` this heap unless the user chose one.
 */
object HeapBudget:
  private val MiB = 1L << 20

  /**
   * The service's own working set: pools, routees, meters, Lettuce and the requests in flight at moderate load.
   * Measured: 315 MB of heap in use (50 MB of it young) at 10,000 open connections each with a request waiting on a
   * timer (`bench connections`, seed 001's wrk -c10000), i.e. ~26 KB a connection with the base included; 128 MiB
   * plus [[ConnectionBytes]] a connection holds that measurement (362 MiB at 10,000) with the heads on top.
   */
  val BaseBytes: Long = 128 * MiB

  /** Pekko HTTP's state for one open connection besides its head: the stream stages, actors and buffers (above). */
  val ConnectionBytes: Long = 24 * 1024

  /**
   * Heap held per byte of a request head in progress, beside its connection's state. Measured in one JVM after a full
   * GC: 1,500 connections each holding an unfinished 65,015-byte head held 153.6 KB a connection, against 15.7 KB with
   * a 44-byte one, i.e. 2.12 bytes of heap a head byte in 8,000-byte headers, 2.28 in 1,100-byte ones (59 headers:
   * Pekko takes at most 64 a head, so smaller headers cannot fill one); the lab's large-heads case, 2,000 such
   * heads, held ~150 KB a connection. 2.5 is above both.
   */
  val HeadByteCost: Double = 2.5

  /**
   * Bytes one connection's transport may hold read and not yet taken by the HTTP layer: the selector transport's
   * read-ahead (its reads are capped by it), or one read of Pekko's (`pekko.io.tcp.direct-buffer-size`, held in the
   * one-element read-ahead stage Pekko puts after its pull-mode TCP stage, which reads no more until it is taken).
   */
  def readAheadBytes(settings: ServiceSettings): Long = settings.server.transport match
    case SocketTransport.Selector => HttpServer.ReadAheadBytes.toLong
    case SocketTransport.Pekko => settings.server.pekkoReadBytes.toLong

  /** The bytes of heads in progress `settings` let the server hold at once: the budget, or every head at its limit. */
  def headBytes(settings: ServiceSettings): Long =
    val s = settings.server
    math.min(s.maxHeadBytesInProgress, s.maxConnections.toLong * s.maxHeadBytes)

  /** The heap `settings` need at most, by use, in the order the refusal names them. */
  def needs(settings: ServiceSettings): Seq[(String, Long)] =
    val s = settings.server
    val heads = headBytes(settings)
    val bound =
      if heads == s.maxHeadBytesInProgress then
        s"bulkhead.service.server.max-head-bytes-in-progress=${s.maxHeadBytesInProgress}"
      else
        s"bulkhead.service.server.max-connections=${s.maxConnections} x " +
          s"bulkhead.service.server.max-head-bytes=${s.maxHeadBytes}"
    val accepted = s.maxConnections.toLong + s.refusedConnections
    val readAhead = readAheadBytes(settings)
    Seq(
      s"request heads in progress ($bound, x $HeadByteCost heap a byte)" -> (heads * HeadByteCost).ceil.toLong,
      s"connection state (${s.maxConnections} x ${ConnectionBytes / 1024} KiB)" -> s.maxConnections * ConnectionBytes,
      s"bytes read ahead ($accepted connections with refused-connections x ${readAhead / 1024.0} KiB, " +
        s"server.transport=${s.transport.key})" -> accepted * readAhead,
      "the service's own working set" -> BaseBytes)

  /** The sum of [[needs]], in bytes. */
  def required(settings: ServiceSettings): Long = needs(settings).map(_._2).sum

  /** The `-Xmx` the launcher gives `serve`: [[required]] rounded up to whole MiB. */
  def xmx(settings: ServiceSettings): String = s"-Xmx${(required(settings) + MiB - 1) / MiB}m"

  /** Right when a heap of `maxHeap` bytes holds what `settings` need; Left with the figures and what to change. */
  def check(maxHeap: Long, settings: ServiceSettings): Either[String, Unit] =
    val parts = needs(settings)
    val sum = parts.map(_._2).sum
    if sum <= maxHeap then Right(())
    else Left(s"this JVM's heap is ${maxHeap / MiB} MiB (-Xmx) but the settings may make it hold up to " +
      s"${(sum + MiB - 1) / MiB} MiB: " + parts.map((what, n) => s"${n / MiB} MiB of $what").mkString(" + ") +
      s"; start it with at least -Xmx${(sum + MiB - 1) / MiB}m (./bulkhead serve does unless BULKHEAD_JAVA_OPTS or " +
      "JAVA_TOOL_OPTIONS sets -Xmx), or lower bulkhead.service.server.max-connections, " +
      "bulkhead.service.server.max-head-bytes-in-progress or bulkhead.service.server.max-head-bytes " +
      "(--max-connections N, --set key=value); with the clients bounded elsewhere, " +
      "--set bulkhead.service.server.refuse-small-heap=false starts it anyway")

  /**
   * The heap this JVM was started with (`MaxHeapSize`, -Xmx or the JVM's default): exact whatever the collector,
   * where `Runtime.maxMemory` leaves out a survivor space on some.
   */
  def processMaxHeap(): Long =
    Try(ManagementFactory.getPlatformMXBean(classOf[HotSpotDiagnosticMXBean]).getVMOption("MaxHeapSize").getValue
      .toLong).getOrElse(Runtime.getRuntime.maxMemory())

  /**
   * Prints the `-Xmx` that `serve` needs for these flags, for the launcher; prints nothing when the flags are not
   * valid (`serve` itself then says why).
   */
  def main(args: Array[String]): Unit =
    ServiceCommandLine.parse(args.toSeq).toOption.flatMap(c => Try(ServiceSettings(c)).toOption)
      .foreach(s => println(xmx(s)))
