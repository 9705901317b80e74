package bulkhead.lab.process

import com.github.plokhotnyuk.jsoniter_scala.core.*
import com.github.plokhotnyuk.jsoniter_scala.macros.JsonCodecMaker

import java.nio.file.{Files, Path}
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*

/** The machine, JDK and versions a figure was measured with, read from the machine itself. */
final case class Environment(cpu: String, cores: Int, memoryGb: Double, kernel: String, jdk: String, wrk: String,
    redis: String, libraries: Seq[String]):
  def markdown: String =
    s"""- machine: $cpu, $cores cores, ${f"$memoryGb%.0f"} GiB, Linux $kernel
       |- JDK: $jdk
       |- load generator: $wrk (same machine, sharing the cores with the server)
       |- redis-server: $redis
       |- libraries: ${libraries.mkString(", ")}""".stripMargin

object Environment:
  private given JsonValueCodec[Environment] = JsonCodecMaker.make
  val FileName = "environment.json"

  /** Written beside a run's results, so a report rendered again states the machine the figures came from. */
  def write(env: Environment, dir: Path): Unit =
    Files.createDirectories(dir)
    Files.write(dir.resolve(FileName), writeToArray(env, WriterConfig.withIndentionStep(1)))

  def readFrom(dir: Path): Option[Environment] =
    val f = dir.resolve(FileName)
    if Files.isReadable(f) then scala.util.Try(readFromArray[Environment](Files.readAllBytes(f))).toOption else None

  def read(launch: Launch): Environment =
    val (cpu, mem, kernel) = machine()
    val wrk = wrkVersion().getOrElse("wrk (version unknown)")
    val redis = Children.runToCompletion(Seq("redis-server", "--version"), 5.seconds).fold(identity, identity)
      .split("\\s+").find(_.startsWith("v=")).map(_.drop(2)).getOrElse("?")
    val wanted = Seq("scala3-library_3", "pekko-actor_3", "pekko-http_3", "lettuce-core", "micrometer-core",
      "scala-xml_3", "jsoniter-scala-core_3")
    val jars = launch.serviceClasspath.split(':').map(p => Path.of(p).getFileName.toString)
    val libraries = wanted.flatMap(w => jars.find(_.startsWith(w + "-")).map(_.stripSuffix(".jar")))
    Environment(cpu, Runtime.getRuntime.availableProcessors(), mem, kernel,
      sys.env.getOrElse("BULKHEAD_JDK", Runtime.version().toString) + s" (${launch.java})", wrk, redis, libraries)

  /**
   * The machine the lab runs on, with a JVM it did not start: `jdk` is that JVM's (as it reports it), the load
   * generator wrk where it is on the PATH, else the lab's own users; no Redis, no libraries of bulkhead's.
   */
  def ofMachine(jdk: String): Environment =
    val (cpu, mem, kernel) = machine()
    Environment(cpu, Runtime.getRuntime.availableProcessors(), mem, kernel, jdk,
      wrkVersion().getOrElse("the lab's own closed-loop users (wrk is not on the PATH)"), "-", Nil)

  private def machine(): (String, Double, String) =
    val cpu = lines("/proc/cpuinfo").find(_.startsWith("model name")).map(_.split(":", 2)(1).trim)
      .getOrElse("unknown CPU")
    val mem = lines("/proc/meminfo").find(_.startsWith("MemTotal")).flatMap(_.split("\\s+").lift(1))
      .flatMap(_.toDoubleOption).map(_ / 1024 / 1024).getOrElse(0.0)
    (cpu, mem, lines("/proc/sys/kernel/osrelease").headOption.getOrElse("?"))

  /** `wrk -v` prints its version and exits 1; None without a wrk. */
  private def wrkVersion(): Option[String] =
    Children.runToCompletion(Seq("wrk", "-v"), 5.seconds).fold(identity, identity) match
      case t if t.startsWith("cannot run") => None
      case t => """wrk \S*\d\S*""".r.findFirstIn(t).orElse(Some("wrk (version unknown)"))

  /** /proc/loadavg's first three fields (1, 5, 15 min): how busy the shared machine is, beside figures it moves. */
  def loadAverage(): String = lines("/proc/loadavg").headOption.fold("?")(_.split(' ').take(3).mkString(" "))

  private def lines(path: String): Seq[String] =
    val p = Path.of(path)
    if Files.isReadable(p) then Files.readAllLines(p).asScala.toSeq else Nil
