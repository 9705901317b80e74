package bulkhead.lab.testkit

import java.io.{ByteArrayOutputStream, PrintStream}
import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.{Callable, ExecutionException, Executors, TimeUnit, TimeoutException}
import scala.jdk.CollectionConverters.*

/**
 * A program's `main` run in this JVM up to its exit: the exit code it would exit with, everything it printed (its
 * standard output and error, in order) and the processes it left running. A JVM per case costs a second of CPU; the
 * program's own path from `main` to its exit code is held by a case run as a real process beside these. One run at a
 * time: it takes this JVM's standard output and error while it runs.
 */
object InProcess:
  /** What a run gave: the exit code, the output, and the processes it started that are still running. */
  final case class Ran(code: Int, output: String, leftRunning: Seq[String])

  def run(limitSeconds: Int = 60)(main: => Int): Ran = synchronized {
    val before = descendants().map(_.pid).toSet
    val buffer = ByteArrayOutputStream()
    val capture = PrintStream(buffer, true, UTF_8)
    val (out, err) = (System.out, System.err)
    val thread = Executors.newSingleThreadExecutor(r => Thread(r, "in-process-main"))
    System.setOut(capture)
    System.setErr(capture)
    val code =
      try
        thread.submit(new Callable[Int]:
          def call(): Int = Console.withOut(capture)(Console.withErr(capture)(main))
        ).get(limitSeconds, TimeUnit.SECONDS)
      catch
        case _: TimeoutException =>
          throw AssertionError(s"did not return in $limitSeconds s; its output: ${buffer.toString(UTF_8)}")
        case e: ExecutionException => throw e.getCause
      finally
        thread.shutdownNow()
        capture.flush()
        System.setOut(out)
        System.setErr(err)
    val left = descendants().filterNot(p => before(p.pid))
      .map(p => s"${p.pid} ${p.info.commandLine.orElse("?")}")
    Ran(code, buffer.toString(UTF_8), left)
  }

  private def descendants(): Seq[ProcessHandle] =
    ProcessHandle.current().descendants().iterator().asScala.filter(_.isAlive).toSeq
