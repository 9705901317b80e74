package bulkhead.service.testkit

import java.net.{ServerSocket, Socket}
import java.nio.file.{Files, Path}
import scala.util.Using

/** A real redis-server on a free loopback port, no persistence, stopped by its PID. */
final class RedisProcess private (val port: Int, process: Process, extra: Seq[String]):
  def uri: String = s"redis://127.0.0.1:$port"
  def pid: Long = process.pid()

  /** Runs redis-cli against this server and returns its output. */
  def cli(args: String*): String =
    val p = ProcessBuilder(("redis-cli" +: "-p" +: port.toString +: args)*).redirectErrorStream(true).start()
    val out = String(p.getInputStream.readAllBytes()).trim
    p.waitFor()
    out

  /** A new redis-server on the same port with the same arguments, e.g. after `stop()`; empty (no persistence). */
  def restart(): RedisProcess = RedisProcess.start(port, extra)

  def stop(): Unit =
    process.destroy()
    if !process.waitFor(5, java.util.concurrent.TimeUnit.SECONDS) then process.destroyForcibly().waitFor()

object RedisProcess:
  def freePort(): Int = Using.resource(ServerSocket(0))(_.getLocalPort)

  /**
   * Starts redis-server on `port` (a free one by default) and waits until it accepts connections. `extra` arguments
   * come last and win, e.g. `--requirepass`, or `--port 0 --tls-port <port>` for TLS only.
   */
  def start(port: Int = freePort(), extra: Seq[String] = Nil): RedisProcess =
    val dir = Scratch.dir("bulkhead-redis")
    val process =
      try
        val command = Seq("redis-server", "--port", port.toString, "--bind", "127.0.0.1", "--save", "",
          "--appendonly", "no", "--dir", dir.toString) ++ extra
        ProcessBuilder(command*).redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile).start()
      catch
        case e: java.io.IOException =>
          throw IllegalStateException(
            "redis-server is not installed: apt-get install redis-server (./bulkhead test installs it as root)", e)
    val deadline = System.nanoTime() + 10_000_000_000L
    while !accepts(port) do
      if !process.isAlive || System.nanoTime() > deadline then
        process.destroyForcibly()
        // Its directory goes with the test JVM: what redis-server said is in the message.
        throw IllegalStateException(s"redis-server did not start on port $port: ${log(dir)}")
      Thread.sleep(20)
    RedisProcess(port, process, extra)

  def withRedis[A](body: RedisProcess => A): A = withRedis()(body)

  def withRedis[A](extra: String*)(body: RedisProcess => A): A =
    val redis = start(extra = extra)
    try body(redis)
    finally redis.stop()

  private def log(dir: Path): String =
    val file = dir.resolve("redis.log")
    if Files.exists(file) then Files.readString(file).takeRight(2000) else "(no redis.log)"

  private def accepts(port: Int): Boolean =
    try
      Using.resource(Socket("127.0.0.1", port))(_ => true)
    catch case _: java.io.IOException => false
