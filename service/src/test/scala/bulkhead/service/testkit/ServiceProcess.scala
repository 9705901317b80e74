package bulkhead.service.testkit

import java.nio.file.{Files, Path}
import java.util.concurrent.TimeUnit
import scala.util.Try

/**
 * The service in a JVM of its own, built from this module's classes: for what only a separate process shows, such as
 * everything it prints, or JVM-wide settings like a trust store. Listens on a free loopback port; stopped by its PID.
 */
final class ServiceProcess private (val port: Int, process: Process, val log: Path):
  def url(path: String): String = s"http://127.0.0.1:$port$path"

  /** Everything the process has printed so far (stdout and stderr). */
  def output: String = Files.readString(log)

  def stop(): Unit =
    process.destroy()
    if !process.waitFor(15, TimeUnit.SECONDS) then process.destroyForcibly().waitFor()

object ServiceProcess:
  private def classpath: String =
    val deps = Path.of("target/runtime-classpath.txt")
    require(Files.exists(deps), s"$deps is missing: build the service with Maven (it is written at compile)")
    s"${Path.of("target/classes").toAbsolutePath}:${Files.readString(deps).trim}"

  /** Starts `bulkhead serve` with `args` and waits until /health answers 200 (at most 60 s). */
  def start(args: Seq[String], jvmOptions: Seq[String] = Nil): ServiceProcess =
    val dir = Files.createTempDirectory("bulkhead-service")
    val portFile = dir.resolve("port")
    val log = dir.resolve("service.log")
    val java = Path.of(System.getProperty("java.home"), "bin", "java").toString
    val command = Seq(java, "-Xmx256m") ++ jvmOptions ++ Seq("-cp", classpath, "bulkhead.service.Main", "--port", "0",
      "--port-file", portFile.toString) ++ args
    val process = ProcessBuilder(command*).redirectErrorStream(true).redirectOutput(log.toFile).start()
    val deadline = System.nanoTime() + 60_000_000_000L
    def port = Try(Files.readString(portFile).trim.toInt).toOption
    def healthy = port.exists(p => Try(HttpProbe.get(s"http://127.0.0.1:$p/health", 5).status == 200).getOrElse(false))
    while !healthy do
      if !process.isAlive || System.nanoTime() > deadline then
        process.destroyForcibly().waitFor()
        throw IllegalStateException(s"the service did not start: ${Files.readString(log).takeRight(2000)}")
      Thread.sleep(100)
    ServiceProcess(port.get, process, log)

  def withService[A](args: Seq[String], jvmOptions: Seq[String] = Nil)(body: ServiceProcess => A): A =
    val service = start(args, jvmOptions)
    try body(service)
    finally service.stop()
