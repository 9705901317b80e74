package bulkhead.lab.process

import java.nio.file.{Files, Path}
import java.util.concurrent.{ConcurrentHashMap, TimeUnit}
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*

/** A child process the lab started, with its log file. */
final class Child(val name: String, val process: Process, val log: Path):
  def pid: Long = process.pid()
  def isAlive: Boolean = process.isAlive

  /**
   * The end of its log, for an error that names it: the log may not outlive the caller (a test's temporary one). Read
   * leniently (a log cut mid-character, or not UTF-8, still gives its end), never failing the error it is part of.
   */
  def logTail: String =
    scala.util.Try(String(Files.readAllBytes(log), java.nio.charset.StandardCharsets.UTF_8).takeRight(2000))
      .getOrElse("")

  /** Sends `signal` (e.g. STOP, CONT) to this child alone, by its PID; false when kill(1) failed (it has exited). */
  def signal(signal: String): Boolean =
    ProcessBuilder("kill", s"-$signal", pid.toString).redirectErrorStream(true)
      .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor() == 0

  /** SIGKILL now (a crash, for fault injection); only this child, by its PID. */
  def kill(): Unit =
    process.destroyForcibly()
    process.waitFor(10, TimeUnit.SECONDS)
    Children.forget(this)

  /**
   * SIGTERM, then SIGKILL after `grace`; this child by its PID, then what it started and left behind (a shell's
   * commands), which would otherwise outlive it as orphans.
   */
  def stop(grace: FiniteDuration = 15.seconds): Unit =
    val descendants = process.descendants().iterator().asScala.toSeq
    if process.isAlive then
      process.destroy()
      if !process.waitFor(grace.toMillis, TimeUnit.MILLISECONDS) then
        process.destroyForcibly()
        process.waitFor(5, TimeUnit.SECONDS)
    val left = descendants.filter(_.isAlive)
    left.foreach(_.destroy())
    left.foreach(p => if !p.onExit().completeOnTimeout(p, 2, TimeUnit.SECONDS).join().isAlive then () else p.destroyForcibly())
    Children.forget(this)

/** Every process the lab starts goes through here, so that all are stopped on success, failure and Ctrl-C. */
object Children:
  private val live = ConcurrentHashMap.newKeySet[Child]()
  Runtime.getRuntime.addShutdownHook(Thread(() => stopAll(), "bulkhead-lab-children"))

  def start(name: String, command: Seq[String], logDir: Path, env: Map[String, String] = Map.empty): Child =
    Files.createDirectories(logDir)
    // A restarted process (e.g. Redis after a kill, a second service) gets its own log: none is overwritten.
    val log = Iterator.from(1).map(i => logDir.resolve(if i == 1 then s"$name.log" else s"$name-$i.log"))
      .find(p => !Files.exists(p)).get
    val builder = ProcessBuilder(command.asJava).redirectErrorStream(true).redirectOutput(log.toFile)
    builder.environment().putAll(env.asJava)
    val child = Child(name, builder.start(), log)
    live.add(child)
    child

  def forget(child: Child): Unit = live.remove(child)

  def stopAll(): Unit = live.asScala.toSeq.foreach(_.stop(5.seconds))

  /** Runs a command to its end (bounded by `limit`) and returns its output, or why it failed. */
  def runToCompletion(command: Seq[String], limit: FiniteDuration): Either[String, String] =
    val process =
      try ProcessBuilder(command.asJava).redirectErrorStream(true).start()
      catch case e: java.io.IOException => return Left(s"cannot run ${command.head}: ${e.getMessage}")
    val child = Child(command.head, process, Path.of("/dev/null"))
    live.add(child)
    val output = Future(String(process.getInputStream.readAllBytes()))
    try
      if !process.waitFor(limit.toMillis, TimeUnit.MILLISECONDS) then
        child.stop(1.second)
        Left(s"${command.head} ran past $limit and was stopped")
      else
        val text = scala.concurrent.Await.result(output, 10.seconds)
        if process.exitValue() == 0 then Right(text) else Left(s"${command.head} exited ${process.exitValue()}: $text")
    catch case _: InterruptedException =>
      // The caller gave up on it (a load whose target died): the command goes too, not left to run out its time.
      child.stop(1.second)
      Left(s"${command.head} was stopped")
    finally forget(child)

  private def Future[A](body: => A): scala.concurrent.Future[A] =
    scala.concurrent.Future(body)(scala.concurrent.ExecutionContext.global)
