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
        // fields after the command: state is index 0, utime index 11, stime index 12
        ticksOf(Files.readString(p)).map(_ / TicksPerSecond)
      catch case _: Exception => None

  /** CPU time of this JVM (the lab): what its sampling cost the machine it shares with the service. */
  def ownSeconds: Option[Double] = seconds(ProcessHandle.current().pid())

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

  /**
   * CPU time of the JVM's JIT compiler threads (HotSpot's C1 and C2, named `C1 CompilerThread<n>`, truncated to 15
   * characters in /proc), in seconds; None for a process without them (nginx, or a JVM that has exited). A JIT still
   * compiling is CPU a benchmark would otherwise count against the request path (see [[bulkhead.lab.load.WarmUp]]).
   */
  def compilerSeconds(pid: Long): Option[Double] =
    val tasks = Path.of(s"/proc/$pid/task")
    if !Files.isDirectory(tasks) then None
    else
      try
        val listing = Files.list(tasks)
        val compilers =
          try listing.iterator().asScala.toSeq.flatMap { t =>
            try
              val name = Files.readString(t.resolve("comm")).trim
              if CompilerThreads.exists(name.startsWith) then ticksOf(Files.readString(t.resolve("stat"))) else None
            catch case _: Exception => None // a thread that ended while read
          }
          finally listing.close()
        Option.when(compilers.nonEmpty)(compilers.sum / TicksPerSecond)
      catch case _: Exception => None // the process ended while read

  private val CompilerThreads = Seq("C1 CompilerThre", "C2 CompilerThre")

  /** utime + stime, in ticks, of a /proc/.../stat line. */
  private def ticksOf(stat: String): Option[Long] =
    val fields = stat.drop(stat.lastIndexOf(')') + 2).split(' ')
    for u <- fields.lift(11).flatMap(_.toLongOption); s <- fields.lift(12).flatMap(_.toLongOption) yield u + s

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
