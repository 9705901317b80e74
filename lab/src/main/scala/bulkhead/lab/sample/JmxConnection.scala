package bulkhead.lab.sample

import java.lang.management.{ManagementFactory, RuntimeMXBean, ThreadMXBean}
import java.util.concurrent.{Executors, TimeUnit, TimeoutException}
import javax.management.remote.{JMXConnector, JMXConnectorFactory, JMXServiceURL}
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*

/**
 * A connection to a JVM's JMX agent, anywhere the lab can reach (a container's published port, a tunnel): its thread
 * dumps through `ThreadMXBean` (with locked monitors and synchronizers, as `Thread.print -l`), its CPU through
 * `OperatingSystemMXBean`, its version and cores. No attach API and no /proc: nothing of the JVM's host is read.
 */
final class JmxConnection private (connector: JMXConnector, val address: JmxAddress) extends AutoCloseable:
  /** The agent's MBean server, for what the platform MXBeans above do not cover (JFR, [[JmxRecording]]). */
  val server: javax.management.MBeanServerConnection = connector.getMBeanServerConnection
  val threads: ThreadMXBean = ManagementFactory.getPlatformMXBean(server, classOf[ThreadMXBean])
  val os: com.sun.management.OperatingSystemMXBean =
    ManagementFactory.getPlatformMXBean(server, classOf[com.sun.management.OperatingSystemMXBean])
  val runtime: RuntimeMXBean = ManagementFactory.getPlatformMXBean(server, classOf[RuntimeMXBean])

  /** A thread dump with locked monitors and synchronizers, and the deadlocks the JVM finds; Left if the call failed. */
  def dump(): Either[String, ThreadDump] = call("thread dump") {
    val infos = threads.dumpAllThreads(true, true).toSeq
    val deadlocked = Option(threads.findDeadlockedThreads()).fold(Set.empty[Long])(_.toSet)
    JmxThreadDump.of(infos, deadlocked)
  }

  /** Milliseconds since the JVM started. */
  def uptimeMs: Either[String, Long] = call("uptime")(runtime.getUptime)

  /** The JVM's log of VM operations ([[VmOperations]]): `VM.events log=vmops`, through its DiagnosticCommand MBean. */
  def vmOperations: Either[String, String] = call("VM.events")(server.invoke(JmxConnection.Diagnostics, "vmEvents",
    Array[AnyRef](Array("log=vmops")), Array(classOf[Array[String]].getName)).asInstanceOf[String])

  /**
   * The carriers of the virtual-thread scheduler (its `VirtualThreadSchedulerMXBean`, JDK 24+, read by name so that
   * this compiles for JDK 17): more than none once a virtual thread has run. None on an older JDK.
   */
  def virtualThreadCarriers: Option[Int] = call("virtual-thread scheduler")(server.getAttribute(
    javax.management.ObjectName("jdk.management:type=VirtualThreadScheduler"), "PoolSize").asInstanceOf[Int]).toOption

  /** The JVM's version (`25.0.3+9-LTS`), as the lab records the JDK of a run. */
  def jdk: String = call("version")(runtime.getVmVersion).getOrElse("?")

  /** A call to the JVM; Left with what failed (the connection lost, the JVM gone). */
  def call[A](what: String)(f: => A): Either[String, A] =
    try Right(f)
    catch
      case e: SecurityException => Left(s"$what over JMX at $address refused: ${JmxConnection.reason(e)} (thread dumps " +
        "are MBean operations: the JMX user needs readwrite access in the agent's access file, readonly is refused)")
      case e: Exception => Left(s"$what over JMX at $address failed: ${JmxConnection.reason(e)}")

  def close(): Unit = try connector.close() catch case _: java.io.IOException => ()

object JmxConnection:
  private val Diagnostics = javax.management.ObjectName("com.sun.management:type=DiagnosticCommand")

  /**
   * Connects to the agent at `address`, with `credentials` when it authenticates. RMI has no timeout of its own: a
   * host that drops packets would hang the lab, so the connection is given up after `timeout`.
   */
  def open(address: JmxAddress, credentials: Option[JmxCredentials], timeout: FiniteDuration = 20.seconds)
      : Either[String, JmxConnection] =
    val env = credentials.map(c => JMXConnector.CREDENTIALS -> c.asEnvironment).toMap[String, AnyRef].asJava
    val connecting = Executors.newSingleThreadExecutor(r =>
      val t = Thread(r, "lab-jmx-connect")
      t.setDaemon(true)
      t)
    val attempt = connecting.submit(() => JMXConnectorFactory.connect(JMXServiceURL(address.serviceUrl), env))
    try
      val connector = attempt.get(timeout.toMillis, TimeUnit.MILLISECONDS)
      try Right(JmxConnection(connector, address))
      catch case e: Exception =>
        connector.close()
        Left(s"JMX at $address: ${reason(e)}")
    catch
      case _: TimeoutException =>
        attempt.cancel(true)
        Left(s"no answer from JMX at $address in ${timeout.toSeconds} s")
      case e: java.util.concurrent.ExecutionException => Left(s"cannot connect to JMX at $address: ${reason(e.getCause)}" +
        hint(e.getCause, credentials.isDefined))
    finally connecting.shutdownNow()

  /** The innermost cause's message: RMI wraps a refused connection three times. */
  def reason(e: Throwable): String =
    val root = Iterator.iterate(e)(_.getCause).takeWhile(_ != null).toSeq.last
    Option(root.getMessage).filter(_.nonEmpty).fold(root.getClass.getSimpleName)(m => s"${root.getClass.getSimpleName}: $m")

  private def hint(e: Throwable, withCredentials: Boolean): String = e match
    case _: SecurityException if !withCredentials => " (the agent authenticates: --jmx-credentials FILE)"
    case _: SecurityException => ""
    case _ => " (is the JVM started with -Dcom.sun.management.jmxremote.port=PORT, and the port reachable?)"
