package bulkhead.service.testkit

import bulkhead.service.HeapBudget
import bulkhead.service.config.{ServiceCommandLine, ServiceSettings}

import java.nio.file.{Files, Path}
import java.util.concurrent.TimeUnit
import scala.util.Try

/**
 * The real service in a JVM of its own (`bulkhead.service.Main` of this module's build), stopped or killed by PID: for
 * what only a separate process shows, such as everything it prints, JVM-wide settings like a trust store, or a
 * cluster node dying.
 */
final class ServiceProcess private (val name: String, process: Process, val log: Path, portFile: Path):
  def pid: Long = process.pid()
  def isAlive: Boolean = process.isAlive

  /** The HTTP port, once the service wrote it to its port file (it is then ready). */
  def port: Option[Int] =
    if Files.exists(portFile) then Files.readString(portFile).trim.toIntOption else None

  def url(path: String): String = s"http://127.0.0.1:${port.get}$path"

  /** Everything the process has printed so far (stdout and stderr). */
  def output: String = if Files.exists(log) then Files.readString(log) else ""

  /** SIGKILL: the node dies without a word to the cluster. */
  def kill(): Unit =
    process.destroyForcibly()
    process.waitFor(10, TimeUnit.SECONDS)

  /** SIGTERM, then SIGKILL if it has not exited in 15 s. */
  def stop(): Unit =
    process.destroy()
    if !process.waitFor(15, TimeUnit.SECONDS) then kill()

  /** Its exit code once it has exited, waiting at most `seconds`; None while it still runs. */
  def exitCode(seconds: Int): Option[Int] =
    Option.when(process.waitFor(seconds, TimeUnit.SECONDS))(process.exitValue())

  /** The end of its log, for a failure message. */
  def logTail: String = output.takeRight(3000)

object ServiceProcess:
  /** The flag `./bulkhead serve` runs the service with: the JVM exits (3) at its first OutOfMemoryError. */
  val ExitOnOutOfMemory = "-XX:+ExitOnOutOfMemoryError"

  /** This module's classes and runtime dependencies, as the build wrote them (maven-dependency-plugin, compile). */
  private def classpath: String =
    val target = Path.of("target").toAbsolutePath
    s"${target.resolve("classes")}:${Files.readString(target.resolve("runtime-classpath.txt")).trim}"

  /**
   * Starts `bulkhead.service.Main` with `args` (plus a free HTTP port and a port file) and JVM options before them;
   * does not wait for it. `openFiles` runs it under that `ulimit -n`.
   */
  def start(name: String, dir: Path, args: Seq[String], jvmOptions: Seq[String] = Nil,
      env: Map[String, String] = Map.empty, openFiles: Option[Int] = None): ServiceProcess =
    Files.createDirectories(dir)
    val portFile = dir.resolve(s"$name.port")
    val log = dir.resolve(s"$name.log")
    Files.deleteIfExists(portFile)
    val java = Path.of(System.getProperty("java.home"), "bin", "java").toString
    // C1 only: several of these JVMs start at once on a small machine. The heap `serve` would give these flags (the
    // service refuses a smaller one): a ceiling, which G1 grows towards only as the test needs. As `serve` runs it, it
    // exits at its first OutOfMemoryError.
    val command = Seq(java, heapFor(args), "-Xss512k", "-XX:TieredStopAtLevel=1", ExitOnOutOfMemory) ++ jvmOptions ++
      Seq("-cp", classpath, "bulkhead.service.Main", "--port", "0", "--port-file", portFile.toString) ++ args
    val limited = openFiles.fold(command)(n => Seq("sh", "-c", s"ulimit -n $n && exec \"$$@\"", "sh") ++ command)
    val builder = ProcessBuilder(limited*).redirectErrorStream(true).redirectOutput(log.toFile)
    env.foreach((k, v) => builder.environment().put(k, v))
    val process = builder.start()
    ServiceProcess(name, process, log, portFile)

  /** The `-Xmx` that `./bulkhead serve` gives `args`; 256 MiB for flags the service refuses anyway. */
  def heapFor(args: Seq[String]): String =
    ServiceCommandLine.parse(args).toOption.flatMap(c => Try(ServiceSettings(c)).toOption)
      .fold("-Xmx256m")(HeapBudget.xmx)

  /** Waits until the service has written its port (its HTTP server is bound), at most `seconds`. */
  def awaitReady(service: ServiceProcess, seconds: Int = 60): Unit =
    val deadline = System.nanoTime() + seconds * 1_000_000_000L
    while service.port.isEmpty do
      if !service.isAlive then throw IllegalStateException(s"${service.name} exited at start:\n${service.logTail}")
      if System.nanoTime() > deadline then
        service.kill()
        throw IllegalStateException(s"${service.name} did not start in $seconds s:\n${service.logTail}")
      Thread.sleep(50)

  /** Starts one service in a directory of its own (`env` added to its environment), waits until /health answers 200. */
  def started(args: Seq[String], jvmOptions: Seq[String] = Nil, env: Map[String, String] = Map.empty)
      : ServiceProcess =
    val service = start("service", Scratch.dir("bulkhead-service"), args, jvmOptions, env)
    awaitReady(service)
    if !HttpProbe.eventually(tries = 300, pauseMs = 100)(Try(HttpProbe.get(service.url("/health"), 5).status == 200)
        .getOrElse(false))
    then
      service.kill()
      throw IllegalStateException(s"${service.name} never answered /health:\n${service.logTail}")
    service

  /** A started service for `body`, always stopped after it. */
  def withService[A](args: Seq[String], jvmOptions: Seq[String] = Nil, env: Map[String, String] = Map.empty)(
      body: ServiceProcess => A): A =
    val service = started(args, jvmOptions, env)
    try body(service)
    finally service.stop()
