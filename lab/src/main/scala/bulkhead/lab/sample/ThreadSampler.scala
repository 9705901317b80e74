package bulkhead.lab.sample

import bulkhead.lab.process.Children

import scala.concurrent.duration.*

/**
 * Thread dumps of any running JVM, as `jcmd <pid> Thread.print -l` prints them (what the seeds did with jstack).
 * Through the attach API from this JVM when it can (see [[Attach]]); else by running jcmd.
 */
object ThreadSampler:
  def jcmd: String =
    sys.props.get("bulkhead.java").map(j => java.nio.file.Path.of(j).resolveSibling("jcmd").toString)
      .filter(p => java.nio.file.Files.isExecutable(java.nio.file.Path.of(p))).getOrElse("jcmd")

  def dump(pid: Long): Either[String, String] =
    Attach.jcmd(pid, "Thread.print -l").orElse(Children.runToCompletion(Seq(jcmd, pid.toString, "Thread.print", "-l"), 30.seconds)
      .left.map(e => s"cannot take a thread dump of $pid: $e"))

  def sample(pid: Long): Either[String, Seq[PoolSample]] = dump(pid).map(t => PoolSample.of(ThreadDump.parse(t)))
