package bulkhead.lab.sample

import java.nio.channels.FileChannel
import java.nio.file.{Files, Path, StandardOpenOption}
import java.nio.{ByteBuffer, ByteOrder}
import scala.jdk.CollectionConverters.*
import scala.util.Try

/**
 * HotSpot's performance counters, read from the file each JVM keeps them in (`hsperfdata_<user>/<pid>` in its
 * temporary directory, `-XX:+UsePerfData`, on by default): what `jstat` reads. Reading them costs the JVM nothing (no
 * attach, no safepoint, no code run in it), so the lab reads them at every sample, bracketing each run's safepoint
 * time: the price of the thread dumps it takes is stopping the world for them.
 *
 * The format (HotSpot's `perfMemory.hpp`): a prologue (magic 0xcafec0c0, the byte order, the offset and number of
 * entries), then entries of a length, a name offset, a vector length, a type ('J' a long) and a data offset.
 */
object PerfCounters:
  private val Magic = 0xcafec0c0

  /** The long counters of the JVM `pid` by name; None when it keeps none where the lab can read them. */
  def read(pid: Long): Option[Map[String, Long]] = file(pid).flatMap(f => Try(parse(bytes(f))).toOption.flatten)

  /** The counters of one perf-data buffer; None when it is not one. */
  def parse(buffer: ByteBuffer): Option[Map[String, Long]] =
    if buffer.limit() < 32 || buffer.order(ByteOrder.BIG_ENDIAN).getInt(0) != Magic then None
    else
      val b = buffer.order(if buffer.get(4) == 0 then ByteOrder.BIG_ENDIAN else ByteOrder.LITTLE_ENDIAN)
      val entries = b.getInt(28)
      var at = b.getInt(24)
      val counters = Map.newBuilder[String, Long]
      var i = 0
      while i < entries && at + 20 <= b.limit() do
        val length = b.getInt(at)
        if length <= 0 then i = entries
        else
          val kind = b.get(at + 12)
          val vector = b.getInt(at + 8)
          if kind == 'J' && vector == 0 then counters += name(b, at + b.getInt(at + 4)) -> b.getLong(at + b.getInt(at + 16))
          at += length
          i += 1
      Some(counters.result())

  /** Safepoints so far (count, total and synchronisation time in ms) from the counters, when they have them. */
  def safepoints(counters: Map[String, Long]): Option[Safepoints] =
    for
      count <- counters.get("sun.rt.safepoints")
      ticks <- counters.get("sun.rt.safepointTime")
      hz <- counters.get("sun.os.hrt.frequency").filter(_ > 0)
    yield Safepoints(count, ticks * 1000.0 / hz, counters.get("sun.rt.safepointSyncTime").fold(0.0)(_ * 1000.0 / hz))

  private def name(b: ByteBuffer, from: Int): String =
    var end = from
    while end < b.limit() && b.get(end) != 0 do end += 1
    val chars = new Array[Byte](end - from)
    b.get(from, chars)
    String(chars, java.nio.charset.StandardCharsets.US_ASCII)

  /** A copy of the file: the JVM rewrites counters in place, a copy reads one consistent-enough instant. */
  private def bytes(f: Path): ByteBuffer =
    val ch = FileChannel.open(f, StandardOpenOption.READ)
    try
      val b = ByteBuffer.allocate(ch.size().toInt)
      while b.hasRemaining && ch.read(b) >= 0 do ()
      b.flip()
      b
    finally ch.close()

  /** `hsperfdata_<user>/<pid>` under the JVM's own /tmp (through /proc, so a JVM in a container is found too). */
  private def file(pid: Long): Option[Path] =
    val roots = Seq(Path.of(s"/proc/$pid/root/tmp"), Path.of(System.getProperty("java.io.tmpdir")))
    roots.iterator.filter(Files.isDirectory(_)).flatMap { tmp =>
      Try {
        val dirs = Files.list(tmp)
        try dirs.iterator().asScala.filter(_.getFileName.toString.startsWith("hsperfdata_")).toSeq
        finally dirs.close()
      }.getOrElse(Nil).map(_.resolve(pid.toString))
    }.find(Files.isReadable(_))

/** A JVM's safepoints so far: how many, the time spent in them and the part of it spent bringing threads to them. */
final case class Safepoints(count: Long, totalMs: Double, syncMs: Double)
