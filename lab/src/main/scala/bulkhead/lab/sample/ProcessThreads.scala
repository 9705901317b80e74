package bulkhead.lab.sample

import java.nio.file.{Files, Path}
import scala.jdk.CollectionConverters.*

/** OS (platform) threads and resident memory of a process, from /proc/<pid>/status: virtual threads are not counted. */
object ProcessThreads:
  final case class Snapshot(threads: Int, residentMb: Double)

  def read(pid: Long): Option[Snapshot] =
    val status = Path.of(s"/proc/$pid/status")
    if !Files.isReadable(status) then None
    else
      try
        val lines = Files.readAllLines(status).asScala
        def field(name: String) = lines.find(_.startsWith(name + ":")).map(_.drop(name.length + 1).trim)
        for
          threads <- field("Threads").flatMap(_.toIntOption)
          rss <- field("VmRSS").flatMap(_.split("\\s+").headOption).flatMap(_.toDoubleOption)
        yield Snapshot(threads, rss / 1024.0)
      catch case _: java.io.IOException => None

  /**
   * Threads of the process that run its code: all but HotSpot's GC and JIT workers, which it starts on demand (a burst
   * of large allocations adds G1 workers that stay) and which say nothing about the service's own pools.
   */
  def application(pid: Long): Option[Int] =
    val tasks = Path.of(s"/proc/$pid/task")
    if !Files.isDirectory(tasks) then None
    else
      try
        val names = Files.list(tasks).iterator().asScala.toSeq.flatMap(t =>
          try Some(Files.readString(t.resolve("comm")).trim) catch case _: java.io.IOException => None)
        Some(names.count(n => !JvmWorkers.exists(n.startsWith)))
      catch case _: java.io.IOException => None

  private val JvmWorkers = Seq("GC Thread", "G1 ", "C1 CompilerThre", "C2 CompilerThre")
