package bulkhead.lab.run

import bulkhead.lab.sample.{JmxAddress, JmxConnection, JmxCredentials, JmxSampler, JvmFacts, ProcessSampler,
  ServiceSampler}

import java.nio.file.{Files, Path}

/**
 * A JVM the lab did not start, as the user names it: by pid on this host (the attach API, as jcmd), or through its
 * JMX agent (in a container, on another host).
 */
enum RunningJvm:
  case ByPid(pid: Long)
  case ByJmx(address: JmxAddress, credentials: Option[Path])

  /** `pid-4242`, `jmx-127.0.0.1-9010`: the run's name, and its results directory's. */
  def key: String = this match
    case ByPid(pid) => s"pid-$pid"
    case ByJmx(a, _) => s"jmx-${a.host}-${a.port}".replaceAll("[^A-Za-z0-9.-]", "-")

  /** `pid 4242`, `jmx 127.0.0.1:9010`: how lines and the record name it. */
  def label: String = this match
    case ByPid(pid) => s"pid $pid"
    case ByJmx(a, _) => s"jmx $a"

  /**
   * Why it cannot be measured, found before anything starts (no such process, a process without a JVM in it, a
   * credentials file that cannot be used): bad input, exit 2. A JVM maps `libjvm.so`; its maps are readable by its
   * own user only, the one the attach API admits.
   */
  def refused: Option[String] = this match
    case ByPid(pid) =>
      val proc = Path.of(s"/proc/$pid")
      if !Files.isDirectory(proc) then Some(s"no process $pid")
      else scala.util.Try(Files.readString(proc.resolve("maps"))).toOption match
        case None => Some(s"process $pid is another user's: the attach API admits only the JVM's own user (run the " +
          "lab as that user, or use --jmx)")
        case Some(maps) if !maps.contains("/libjvm.so") => Some(s"process $pid is not a JVM (no libjvm.so in it)")
        case Some(_) => None
    case ByJmx(_, credentials) => credentials.flatMap(f => JmxCredentials.read(f).left.toOption)

  /**
   * Connects: a sampler, and the JDK and cores the JVM reports itself (a pid's through the attach API, read once; a
   * JMX agent's through its MXBeans). Left when it cannot be reached. `allowRiskyDumps`: take the JSON dump even on a
   * JDK where it can crash the JVM ([[bulkhead.lab.sample.DumpHazards]]).
   */
  def open(allowRiskyDumps: Boolean = false): Either[String, OpenJvm] = this match
    case ByPid(pid) =>
      JvmFacts.of(pid).left.map(e => s"$e: is it a JVM of this user?").map(facts =>
        OpenJvm(this, ServiceSampler(pid, None, allowRiskyDumps = allowRiskyDumps), facts))
    case ByJmx(address, file) =>
      for
        credentials <- file.fold(Right(None))(f => JmxCredentials.read(f).map(Some(_)))
        connection <- JmxConnection.open(address, credentials)
      yield
        val sampler = JmxSampler(connection)
        OpenJvm(this, sampler,
          JvmFacts(connection.jdk, sampler.cores.getOrElse(Runtime.getRuntime.availableProcessors())),
          () => connection.close())

/** A [[RunningJvm]] connected: its sampler, and the JDK and cores it reported; `close` when done. */
final case class OpenJvm(jvm: RunningJvm, sampler: ProcessSampler, facts: JvmFacts, close: () => Unit = () => ())
