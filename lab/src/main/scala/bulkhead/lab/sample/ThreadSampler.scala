package bulkhead.lab.sample

import bulkhead.lab.process.Children

import java.io.InputStream
import scala.concurrent.duration.*
import scala.util.Try

/**
 * Thread dumps of any running JVM, as `jcmd <pid> Thread.print -l` prints them (what the seeds did with jstack).
 * Through the attach API from this JVM when it can (no new JVM per sample: launching jcmd every few seconds costs a
 * core's worth of CPU on a 2-core machine and would bias the measurement); else by running jcmd.
 */
object ThreadSampler:
  def jcmd: String =
    sys.props.get("bulkhead.java").map(j => java.nio.file.Path.of(j).resolveSibling("jcmd").toString)
      .filter(p => java.nio.file.Files.isExecutable(java.nio.file.Path.of(p))).getOrElse("jcmd")

  def dump(pid: Long): Either[String, String] =
    attached(pid).orElse(Children.runToCompletion(Seq(jcmd, pid.toString, "Thread.print", "-l"), 30.seconds)
      .left.map(e => s"cannot take a thread dump of $pid: $e"))

  def sample(pid: Long): Either[String, Seq[PoolSample]] = dump(pid).map(t => PoolSample.of(ThreadDump.parse(t)))

  /** HotSpot's attach mechanism, the one jcmd uses; needs --add-opens=jdk.attach/sun.tools.attach (the launcher's). */
  private def attached(pid: Long): Either[String, String] =
    Try {
      val vmClass = Class.forName("com.sun.tools.attach.VirtualMachine")
      val vm = vmClass.getMethod("attach", classOf[String]).invoke(null, pid.toString)
      try
        val execute = vm.getClass.getMethod("executeJCmd", classOf[String])
        execute.setAccessible(true)
        val in = execute.invoke(vm, "Thread.print -l").asInstanceOf[InputStream]
        try String(in.readAllBytes()) finally in.close()
      finally vmClass.getMethod("detach").invoke(vm)
    }.toEither.left.map(e => s"attach to $pid failed: ${e.getClass.getSimpleName}")
