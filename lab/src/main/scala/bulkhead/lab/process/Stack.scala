package bulkhead.lab.process

import bulkhead.lab.model.Target

import java.net.{ServerSocket, Socket, URI}
import java.net.http.{HttpClient, HttpRequest, HttpResponse}
import java.nio.file.{Files, Path}
import scala.concurrent.duration.*
import scala.util.Using

/**
 * Where the lab finds the JVMs it starts: set by the launcher (./bulkhead) as system properties. `peers` holds the
 * classpath of each peer server module (akka-http, spray, pekko-minimal, jetty, tomcat, zoo) that was built.
 * `classData`: where the JVMs' class-data archives are kept ([[ClassData]]), for the tests' many starts; None (the
 * commands) starts every JVM without.
 */
final case class Launch(java: String, jvmFlags: Seq[String], serviceClasspath: String, stubClasspath: String,
    peers: Map[Target.JvmPeer, String] = Map.empty, classData: Option[Path] = None)

object Launch:
  /**
   * A clone's build, where the lab can start bulkhead's service, its stub and the peers (the stub's classes are on the
   * classpath); false in bulkhead-lab.jar, which ships the tool alone.
   */
  def inRepository: Boolean = getClass.getClassLoader.getResource("bulkhead/stub/Latency.class") != null

  def fromSystem(): Launch =
    def prop(k: String) = Option(System.getProperty(k)).filter(_.nonEmpty)
      .getOrElse(throw IllegalStateException(s"system property $k is not set: run the lab through ./bulkhead"))
    val peers = Target.JvmPeers.flatMap(p =>
      Option(System.getProperty(s"bulkhead.peer.${p.name}.classpath")).map(p -> _))
    Launch(prop("bulkhead.java"), sys.env.getOrElse("BULKHEAD_JVM_FLAGS", "").split("\\s+").filter(_.nonEmpty).toSeq,
      prop("bulkhead.service.classpath"), prop("bulkhead.stub.classpath"), peers.toMap)

/** A started process and the port it serves. */
final case class Served(child: Child, port: Int):
  def url(path: String): String = s"http://127.0.0.1:$port$path"

/** Starts redis-server, the stub and the service as separate processes on free loopback ports. */
final class Stack(launch: Launch, dir: Path):
  Files.createDirectories(dir)

  /** redis-server on `port` (a free one by default; the same one to restart it). Extra arguments, e.g. a password. */
  def redis(port: Int = Stack.freePort(), extra: Seq[String] = Nil): Served =
    val child = Children.start("redis", Seq("redis-server", "--port", port.toString, "--bind", "127.0.0.1", "--save",
      "", "--appendonly", "no", "--dir", dir.toString) ++ extra, dir)
    Stack.awaitPort(child, port, 15.seconds)
    Served(child, port)

  def stub(args: Seq[String]): Served =
    jvm("stub", launch.stubClasspath, "bulkhead.stub.Main", Seq("-Xmx512m", Stack.ExitOnOutOfMemory), args)

  /** The server a scenario loads: the service with every flag, or a peer with the ones it understands. */
  def server(target: Target, serviceFlags: Seq[String], heap: String = Stack.DefaultHeap,
      jvmExtra: Seq[String] = Nil): Served = target match
    case Target.Bulkhead => service(serviceFlags, heap, jvmExtra)
    case p: Target.Peer => peer(p, serviceFlags, jvmExtra)

  /**
   * A peer server: its own JVM, or nginx. Of the scenario's flags it gets the ones it understands
   * ([[Target.flagsOf]]); its readiness is its /hello.
   */
  def peer(target: Target.Peer, serviceFlags: Seq[String], jvmExtra: Seq[String] = Nil): Served =
    target match
      case Target.Nginx => Nginx.start(dir)
      case p: Target.JvmPeer =>
        val classpath = launch.peers.getOrElse(p, throw IllegalStateException(
          s"peer '$p' is not built (no classpath): run the lab through ./bulkhead, which builds peers/"))
        jvm(p.name, classpath, p.mainClass, Seq("-Xmx1g", "-Xss512k") ++ jvmExtra, p.flagsOf(serviceFlags),
          ready = "/hello")

  /**
   * The service; `jvmExtra` adds JVM options (e.g. a trust store for a TLS Redis), `env` environment variables (e.g.
   * the Redis password, which the service refuses on its command line). `name` names its log and port file: distinct
   * for each node of a cluster.
   */
  def service(args: Seq[String], heap: String = Stack.DefaultHeap, jvmExtra: Seq[String] = Nil,
      env: Map[String, String] = Map.empty, name: String = "service", prefix: Seq[String] = Nil): Served =
    jvm(name, launch.serviceClasspath, Target.Bulkhead.mainClass, Seq(heap, "-Xss512k", Stack.ExitOnOutOfMemory) ++
      jvmExtra, args, env = env, prefix = prefix)

  /** `prefix` runs before the JVM's command and `exec`s it (e.g. into a cgroup), keeping its PID. */
  private def jvm(name: String, classpath: String, main: String, jvmArgs: Seq[String], args: Seq[String],
      ready: String = "/health", env: Map[String, String] = Map.empty, prefix: Seq[String] = Nil): Served =
    val portFile = dir.resolve(s"$name.port")
    Files.deleteIfExists(portFile)
    val archive = launch.classData.fold(ClassData.Plain)(ClassData.use(_, launch.java, classpath))
    val command = prefix ++ Seq(launch.java) ++ launch.jvmFlags ++ archive.options ++ jvmArgs ++ Seq("-cp", classpath,
      main, "--port", "0", "--port-file", portFile.toString) ++ args
    val child = Children.start(name, command, dir, env)
    child.process.onExit().thenAccept(p => archive.exited(p.exitValue()))
    val deadline = System.nanoTime() + 60.seconds.toNanos
    while !(Files.exists(portFile) && Files.readString(portFile).trim.nonEmpty) do
      if !child.isAlive then
        throw IllegalStateException(s"$name exited at start: ${child.logTail}")
      if System.nanoTime() > deadline then
        child.stop()
        throw IllegalStateException(s"$name did not start in 60 s; see ${child.log}:\n${child.logTail}")
      Thread.sleep(50)
    val served = Served(child, Files.readString(portFile).trim.toInt)
    Stack.awaitReady(served, ready)
    served

object Stack:
  /**
   * The service and the stub exit at their first OutOfMemoryError, as `./bulkhead serve` runs them: a JVM that lost a
   * selector thread or an actor to one would look alive and serve nothing.
   */
  val ExitOnOutOfMemory = "-XX:+ExitOnOutOfMemoryError"

  /** The service's heap unless a scenario sets its own. */
  val DefaultHeap = "-Xmx2g"

  /**
   * The heap `./bulkhead serve` gives the service's shipped settings (`bulkhead.service.HeapBudget`: 256 MiB of heads
   * in progress x 2.5 + 16,384 connections x 24 KiB + 17,408 connections x 1 KiB read ahead + 128 MiB); a smaller one
   * is refused at start unless the flags lower max-head-bytes-in-progress or max-connections. ServeHeapSpec keeps it
   * equal to HeapBudget's.
   */
  val ServeHeap = "-Xmx1169m"

  def freePort(): Int = Using.resource(ServerSocket(0))(_.getLocalPort)

  def awaitPort(child: Child, port: Int, limit: FiniteDuration): Unit =
    val deadline = System.nanoTime() + limit.toNanos
    while !accepts(port) do
      if !child.isAlive || System.nanoTime() > deadline then
        child.stop()
        throw IllegalStateException(s"${child.name} did not accept on port $port; see ${child.log}:\n${child.logTail}")
      Thread.sleep(20)

  private val http = HttpClient.newHttpClient()

  def get(url: String, timeout: FiniteDuration = 10.seconds): Either[String, String] =
    try
      val r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(java.time.Duration.ofMillis(timeout.toMillis))
          .build(),
        HttpResponse.BodyHandlers.ofString())
      if r.statusCode() == 200 then Right(r.body()) else Left(s"HTTP ${r.statusCode()} from $url")
    catch case e: Exception => Left(s"$url: ${e.getClass.getSimpleName} ${Option(e.getMessage).getOrElse("")}")

  def post(url: String): Either[String, String] =
    try
      val r = http.send(HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.noBody()).build(),
        HttpResponse.BodyHandlers.ofString())
      if r.statusCode() == 200 then Right(r.body()) else Left(s"HTTP ${r.statusCode()} from $url: ${r.body()}")
    catch case e: Exception => Left(s"$url: ${e.getMessage}")

  def awaitReady(s: Served, path: String): Unit =
    val deadline = System.nanoTime() + 30.seconds.toNanos
    while get(s.url(path)).isLeft do
      if !s.child.isAlive then
        throw IllegalStateException(s"${s.child.name} exited at start: ${s.child.logTail}")
      if System.nanoTime() > deadline then
        s.child.stop()
        throw IllegalStateException(s"${s.child.name} never answered $path; see ${s.child.log}:\n${s.child.logTail}")
      Thread.sleep(50)

  private def accepts(port: Int): Boolean =
    try Using.resource(Socket("127.0.0.1", port))(_ => true)
    catch case _: java.io.IOException => false
