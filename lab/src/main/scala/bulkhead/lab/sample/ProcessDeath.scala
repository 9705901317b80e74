package bulkhead.lab.sample

import java.nio.file.{Files, Path}
import scala.concurrent.duration.*

/**
 * Whether the JVM `pid` is still running, and if not, how it ended: its exit code and signal when it is the lab's own
 * child (`process`), and its hs_err log, whose possible paths are read from /proc at the start.
 */
final class ProcessDeath(pid: Long, process: Option[Process] = None):
  private val hsErrCandidates = HsErr.candidates(pid)

  def alive: Boolean = process.fold(Files.isDirectory(Path.of(s"/proc/$pid")) && !zombie)(_.isAlive)

  /** The death seen at `second`, once the JVM has ended; None while it runs. */
  def check(second: Double): Option[TargetDeath] =
    if alive then None
    else
      val code = process.flatMap(p => scala.util.Try(p.exitValue()).toOption)
      // The JVM writes its log before it aborts; its file system may take a moment to show it. A JVM that exited
      // normally, or was killed by a signal it cannot handle or that ends it quietly, writes none.
      val quiet = code.exists(c => c == 0 || TargetDeath.signalOf(c).exists(ProcessDeath.QuietSignals))
      val deadline = System.nanoTime() + ProcessDeath.HsErrWait.toNanos
      var hsErr = HsErr.find(hsErrCandidates)
      while hsErr.isEmpty && !quiet && System.nanoTime() < deadline do
        Thread.sleep(100)
        hsErr = HsErr.find(hsErrCandidates)
      val (fatal, frame) = hsErr.fold((None, None))(HsErr.readFile)
      Some(TargetDeath(second, "exited", code, code.flatMap(TargetDeath.signalOf), fatal, frame, hsErr.map(_.toString)))

  /** A process that has ended and whose parent has not reaped it yet: /proc still lists it. */
  private def zombie: Boolean =
    scala.util.Try(Files.readString(Path.of(s"/proc/$pid/stat"))).toOption
      .exists(s => s.drop(s.lastIndexOf(')') + 2).startsWith("Z"))

object ProcessDeath:
  val HsErrWait: FiniteDuration = 2.seconds
  /** Signals that end a JVM without a fatal error log. */
  val QuietSignals: Set[String] = Set("SIGKILL", "SIGTERM", "SIGINT", "SIGHUP")
