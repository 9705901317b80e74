package bulkhead.lab.sample

import bulkhead.lab.process.Children

import java.nio.file.Files
import scala.concurrent.duration.*

/**
 * Thread dumps of any running JVM, as `jcmd <pid> Thread.print -l` prints them (what the seeds did with jstack), and
 * the JSON dump of JDK 21+, the only one with virtual threads ([[JvmPools]] chooses, by [[DumpHazards]]). Through the attach API from this
 * JVM when it can (see [[Attach]]); else by running jcmd.
 */
object ThreadSampler:
  /** The jcmd beside the java the launcher chose, else beside this JVM's, else the one on the PATH. */
  def jcmd: String =
    (sys.props.get("bulkhead.java").toSeq :+ s"${System.getProperty("java.home")}/bin/java")
      .map(j => java.nio.file.Path.of(j).resolveSibling("jcmd"))
      .find(java.nio.file.Files.isExecutable).fold("jcmd")(_.toString)

  /**
   * `locks`: `-l`, the owners of `java.util.concurrent` locks, which HotSpot finds by walking the heap at the dump's
   * safepoint (its pause then grows with the heap).
   */
  def dump(pid: Long, locks: Boolean = true): Either[String, String] =
    val args = if locks then Seq("Thread.print", "-l") else Seq("Thread.print")
    Attach.jcmd(pid, args.mkString(" ")).orElse(Children.runToCompletion(Seq(jcmd, pid.toString) ++ args, 30.seconds)
      .left.map(e => s"cannot take a thread dump of $pid: $e"))

  def sample(pid: Long): Either[String, Seq[PoolSample]] = dump(pid).map(t => PoolSample.of(ThreadDump.parse(t)))

  /**
   * A JSON dump (JDK 21+), the only kind that lists virtual threads; Left on a JVM without `Thread.dump_to_file`.
   * The sampled JVM writes the file itself, so it goes to a fresh temporary directory, read and removed here.
   */
  def dumpJson(pid: Long): Either[String, String] =
    val dir = Files.createTempDirectory("bulkhead-threads")
    val file = dir.resolve(s"threads-$pid.json")
    try
      Attach.jcmd(pid, s"Thread.dump_to_file -format=json $file")
        .orElse(Children.runToCompletion(Seq(jcmd, pid.toString, "Thread.dump_to_file", "-format=json", file.toString),
          30.seconds))
        .flatMap(out =>
          if Files.exists(file) then Right(Files.readString(file))
          else Left(s"no JSON thread dump of $pid: ${out.trim.take(200)}"))
    finally
      Files.deleteIfExists(file)
      Files.deleteIfExists(dir)

  /**
   * `jcmd <pid> Thread.vthread_scheduler` (JDK 24+): the virtual-thread scheduler, whose identity
   * [[JsonThreadDump.schedulerIdentity]] reads.
   */
  def scheduler(pid: Long): Either[String, String] = Attach.jcmd(pid, "Thread.vthread_scheduler")

  /** `jcmd <pid> VM.version`: the JVM's version, read once per sampled JVM to choose its dump ([[JvmPools]]). */
  def version(pid: Long): Either[String, String] =
    Attach.jcmd(pid, "VM.version").orElse(Children.runToCompletion(Seq(jcmd, pid.toString, "VM.version"), 30.seconds)
      .left.map(e => s"cannot read the version of $pid: $e"))
