package bulkhead.lab.sample

import bulkhead.lab.process.Children

import scala.concurrent.duration.*

/**
 * What a sampled JVM says of itself: its JDK (`java.vm.version`, as `RuntimeMXBean.getVmVersion` gives it over JMX)
 * and the processors it was started with (what `Runtime.availableProcessors()` gave it: a container's limit, an
 * affinity mask or `-XX:ActiveProcessorCount`), read once through the attach API. A run records these, not the lab's
 * own: a JDK 17 service sampled from a JDK 25 lab on a bigger host is a JDK 17 service on its own cores.
 */
final case class JvmFacts(jdk: String, cores: Int)

object JvmFacts:
  /** The facts of the JVM `pid`; Left when it does not answer `VM.system_properties` or `VM.info`. */
  def of(pid: Long): Either[String, JvmFacts] =
    for
      properties <- ask(pid, "VM.system_properties")
      info <- ask(pid, "VM.info")
      jdk <- jdk(properties).toRight(s"no java.vm.version in the system properties of $pid")
      cores <- cores(info).toRight(s"no CPU line in VM.info of $pid")
    yield JvmFacts(jdk, cores)

  /** Through the attach API, else by running jcmd (a lab started without the attach API opened). */
  private def ask(pid: Long, command: String): Either[String, String] =
    Attach.jcmd(pid, command).orElse(Children.runToCompletion(Seq(ThreadSampler.jcmd, pid.toString, command), 30.seconds)
      .left.map(e => s"cannot ask $pid for $command: $e"))

  /** `java.vm.version` from `jcmd PID VM.system_properties`. */
  def jdk(systemProperties: String): Option[String] =
    """(?m)^java\.vm\.version=(.+)$""".r.findFirstMatchIn(systemProperties).map(_.group(1).trim)

  /**
   * The active processors from `jcmd PID VM.info`'s `CPU: total 2 (initial active 1)`: the count the JVM computed at
   * its start, which `-XX:ActiveProcessorCount` and a container's CPU limit set (its `active_processor_count` line is
   * absent outside a container on some JDKs).
   */
  def cores(vmInfo: String): Option[Int] =
    """(?m)^CPU:\s*total \d+ \(initial active (\d+)\)""".r.findFirstMatchIn(vmInfo).flatMap(_.group(1).toIntOption)
