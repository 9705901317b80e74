package bulkhead.lab.cli

import bulkhead.lab.run.RunningJvm
import bulkhead.lab.sample.JmxAddress

import java.nio.file.Path

/**
 * `--pid`, `--jmx` and `--jmx-credentials` as given ([[CommonFlags.jvm]] declares them): the JVM to measure, or with
 * `--jmx` given again, the replicas of one service, sampled together (a fleet); and `--allow-risky-dumps`, how it may
 * be sampled.
 */
final case class JvmFlags(pid: Option[Long] = None, jmx: Seq[JmxAddress] = Nil, jmxCredentials: Option[Path] = None,
    allowRiskyDumps: Boolean = false):
  /** What is wrong with the combination, for a command that measures one JVM; None when one JVM is named. */
  def problem: Option[String] =
    fleetProblem.orElse(Option.when(jmx.size > 1)("--jmx is given once here (one JVM); several replicas are " +
      "diagnosed together by lab diagnose"))

  /** What is wrong with the combination, for a command that measures a JVM or the replicas of a fleet. */
  def fleetProblem: Option[String] =
    if pid.isDefined == jmx.nonEmpty then Some("give the JVM to sample: --pid PID or --jmx HOST:PORT (one of them)")
    else if jmxCredentials.isDefined && jmx.isEmpty then Some("--jmx-credentials goes with --jmx")
    else if jmx.distinct.size < jmx.size then Some(s"--jmx names a JVM twice: ${jmx.diff(jmx.distinct).mkString(", ")}")
    else None

  /** True when a JVM is named at all (a command that also takes scenario files). */
  def named: Boolean = pid.isDefined || jmx.nonEmpty

  /** The JVM named (the first replica of a fleet); call after [[problem]] is None. */
  def jvm: RunningJvm = jvms.head

  /** Every JVM named: the one `--pid`, or each `--jmx` in the order given. */
  def jvms: Seq[RunningJvm] = pid.fold(jmx.map(RunningJvm.ByJmx(_, jmxCredentials)))(p => Seq(RunningJvm.ByPid(p)))
