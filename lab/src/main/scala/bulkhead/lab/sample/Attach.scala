package bulkhead.lab.sample

import java.io.{ByteArrayOutputStream, InputStream}
import java.nio.charset.StandardCharsets
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
        try readAll(in) finally in.close()
      finally vmClass.getMethod("detach").invoke(vm)
    }.toEither.left.map(e => s"attach to $pid failed: ${e.getClass.getSimpleName}")

  /**
   * The command's whole output, read into a buffer from its start each time. The attach socket's native read fills up
   * to 128 bytes whatever length it is given: `readAllBytes`, which asks for the few bytes left at the end of its
   * buffer, fails with ArrayIndexOutOfBoundsException on JDK 25 (every dump then fell back to launching jcmd) and
   * came back with a handful of threads on JDK 17.
   */
  private def readAll(in: InputStream): String =
    val out = ByteArrayOutputStream()
    val buffer = new Array[Byte](8192)
    var n = in.read(buffer)
    while n >= 0 do
      out.write(buffer, 0, n)
      n = in.read(buffer)
    out.toString(StandardCharsets.UTF_8)
