package bulkhead.lab.sample

/**
 * A sampled JVM that ended during a run: when (the run's second), how the lab knew (`exited`, or `the JMX connection
 * was lost`), its exit code and the signal it died of where knowable (the lab's own child: `Process.exitValue`), the
 * fatal error its `hs_err` file reports (`SIGSEGV`, and the problematic frame) and that file's path.
 */
final case class TargetDeath(second: Double, how: String, exitCode: Option[Int] = None, signal: Option[String] = None,
    fatal: Option[String] = None, frame: Option[String] = None, hsErr: Option[String] = None):
  /** `died at 3.4 s: exited on SIGABRT (exit code 134) after a fatal SIGSEGV in V [libjvm.so+...]; hs_err: /x/hs_err_pid42.log`. */
  def sentence: String =
    val exit = (signal, exitCode) match
      case (Some(s), Some(c)) => s" on $s (exit code $c)"
      case (None, Some(c)) => s" with exit code $c"
      case (Some(s), None) => s" on $s"
      case _ => ""
    val crash = fatal.fold("")(f => s" after a fatal $f" + frame.fold("")(fr => s" in $fr"))
    f"died at $second%.1f s: $how$exit$crash; " + hsErr.fold("no hs_err file found")(p => s"hs_err: $p")

object TargetDeath:
  private val Names = Map(1 -> "SIGHUP", 2 -> "SIGINT", 3 -> "SIGQUIT", 4 -> "SIGILL", 6 -> "SIGABRT", 7 -> "SIGBUS",
    8 -> "SIGFPE", 9 -> "SIGKILL", 11 -> "SIGSEGV", 13 -> "SIGPIPE", 15 -> "SIGTERM")

  /** The signal of an exit code a shell or `Process.exitValue` gives a process killed by one (128 + its number). */
  def signalOf(exitCode: Int): Option[String] =
    Option.when(exitCode > 128 && exitCode < 160)(exitCode - 128).map(n => Names.getOrElse(n, s"signal $n"))
