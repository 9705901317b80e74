package bulkhead.lab.cli

import bulkhead.lab.run.RunningJvm
import bulkhead.lab.sample.JmxAddress

import java.nio.file.Path

/** `--pid`, `--jmx` and `--jmx-credentials` as given ([[CommonFlags.jvm]] declares them): the JVM to measure. */
final case class JvmFlags(pid: Option[Long] = None, jmx: Option[JmxAddress] = None, jmxCredentials: Option[Path] = None):
  /** What is wrong with the combination, for a command's `checkConfig`; None when one JVM is named. */
  def problem: Option[String] =
    if pid.isDefined == jmx.isDefined then Some("give the JVM to sample: --pid PID or --jmx HOST:PORT (one of them)")
    else if jmxCredentials.isDefined && jmx.isEmpty then Some("--jmx-credentials goes with --jmx")
    else None

  /** True when a JVM is named at all (a command that also takes scenario files). */
  def named: Boolean = pid.isDefined || jmx.isDefined

  /** The JVM named; call after [[problem]] is None. */
  def jvm: RunningJvm = pid.fold(RunningJvm.ByJmx(jmx.get, jmxCredentials))(RunningJvm.ByPid(_))
