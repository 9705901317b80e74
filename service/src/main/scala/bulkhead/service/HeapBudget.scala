package bulkhead.service

import bulkhead.service.config.{ServiceCommandLine, ServiceSettings}
import com.sun.management.HotSpotDiagnosticMXBean

import java.lang.management.ManagementFactory
import scala.util.Try

/**
 * Whether the heap can hold what clients may make the service hold at once. The largest part a client controls is
 * its request head: up to `max-head-bytes` on each of `max-connections` connections (64 KiB x 16,384 = 1 GiB with the
 * shipped settings), beside the state Pekko keeps for each connection and the service's own working set. A heap
 * short of that is an OutOfMemoryError waiting for a few thousand hostile clients, so `serve` refuses to start
 * instead, naming the settings to lower; the launcher gives `serve` this heap unless the user chose one.
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

  /** The heap `settings` need at most, by use, in the order the refusal names them. */
  def needs(settings: ServiceSettings): Seq[(String, Long)] =
    val s = settings.server
    Seq(
      s"request heads (bulkhead.service.server.max-connections=${s.maxConnections} x " +
        s"bulkhead.service.server.max-head-bytes=${s.maxHeadBytes})" -> s.maxConnections.toLong * s.maxHeadBytes,
      s"connection state (${s.maxConnections} x ${ConnectionBytes / 1024} KiB)" -> s.maxConnections * ConnectionBytes,
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
      "JAVA_TOOL_OPTIONS sets -Xmx), or lower bulkhead.service.server.max-connections or " +
      "bulkhead.service.server.max-head-bytes (--max-connections N, --set key=value)")

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
