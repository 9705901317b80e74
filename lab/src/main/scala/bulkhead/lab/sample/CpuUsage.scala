package bulkhead.lab.sample

import java.nio.file.{Files, Path}
import scala.jdk.CollectionConverters.*

/** CPU time of a process (user + system, in seconds) from /proc/<pid>/stat, to turn into cores used over a run. */
object CpuUsage:
  private val TicksPerSecond = 100.0 // USER_HZ on Linux

  def seconds(pid: Long): Option[Double] =
    val p = Path.of(s"/proc/$pid/stat")
    if !Files.isReadable(p) then None
    else
      try
        val text = Files.readString(p)
        val fields = text.drop(text.lastIndexOf(')') + 2).split(' ')
        // fields after the command: state is index 0, utime index 11, stime index 12
        Some((fields(11).toLong + fields(12).toLong) / TicksPerSecond)
      catch case _: Exception => None

  /** CPU time of a process and its direct children (nginx's master and its worker), in seconds. */
  def treeSeconds(pid: Long): Option[Double] =
    seconds(pid).map { own =>
      val children =
        try
          val procs = Files.list(Path.of("/proc"))
          try procs.iterator().asScala.toSeq.flatMap(p => p.getFileName.toString.toLongOption)
            .filter(c => parent(c).contains(pid)).flatMap(seconds)
          finally procs.close()
        catch case _: java.io.IOException => Nil
      own + children.sum
    }

  private def parent(pid: Long): Option[Long] =
    try
      val text = Files.readString(Path.of(s"/proc/$pid/stat"))
      text.drop(text.lastIndexOf(')') + 2).split(' ').lift(1).flatMap(_.toLongOption)
    catch case _: Exception => None

  /** The whole machine's busy share (0..1) between two readings of /proc/stat. */
  def machineBusy(): Option[(Long, Long)] =
    val p = Path.of("/proc/stat")
    if !Files.isReadable(p) then None
    else
      val cpu = Files.readAllLines(p).get(0).split("\\s+").drop(1).map(_.toLong)
      val idle = cpu(3) + cpu.lift(4).getOrElse(0L)
      Some((cpu.sum - idle, cpu.sum))
