package bulkhead.lab.sample

import java.io.InputStream
import scala.util.Try

/**
 * HotSpot's attach mechanism, the one jcmd uses, from this JVM: no new JVM per command (launching jcmd every few
 * seconds costs a core's worth of CPU on a 2-core machine). Needs --add-opens=jdk.attach/sun.tools.attach (the
 * launcher's).
 */
object Attach:
  /** Runs a jcmd command (e.g. "Thread.print -l", "GC.run") in the JVM `pid` and returns its output. */
  def jcmd(pid: Long, command: String): Either[String, String] =
    Try {
      val vmClass = Class.forName("com.sun.tools.attach.VirtualMachine")
      val vm = vmClass.getMethod("attach", classOf[String]).invoke(null, pid.toString)
      try
        val execute = vm.getClass.getMethod("executeJCmd", classOf[String])
        execute.setAccessible(true)
        val in = execute.invoke(vm, command).asInstanceOf[InputStream]
        try String(in.readAllBytes()) finally in.close()
      finally vmClass.getMethod("detach").invoke(vm)
    }.toEither.left.map(e => s"attach to $pid failed: ${e.getClass.getSimpleName}")
