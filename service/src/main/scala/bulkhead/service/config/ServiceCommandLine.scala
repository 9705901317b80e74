package bulkhead.service.config

import com.typesafe.config.{Config, ConfigFactory, ConfigValueFactory}
import scopt.OParser

import java.io.File
import scala.jdk.CollectionConverters.*

/** `./bulkhead serve` flags: each one overrides a key of reference.conf; `--set` overrides any key. */
object ServiceCommandLine:
  private final case class Options(overrides: Vector[(String, String)] = Vector.empty, file: Option[File] = None,
      seedNodes: Vector[String] = Vector.empty):
    def set(key: String, value: Any): Options = copy(overrides = overrides :+ (key -> value.toString))

  /** Flags that set one configuration key each: the flag, the key, what it sets. */
  private val keyFlags: Seq[(String, String, String)] =
    val fj = "pekko.actor.default-dispatcher.fork-join-executor"
    val metricsPortHelp = "serve /metrics on its own listener (0 = any free port; default -1: on the service's listener)"
    Seq(
      ("host", "bulkhead.service.host", "interface to bind"),
      ("port-file", "bulkhead.service.port-file", "write the bound port to this file when ready"),
      ("metrics-host", "bulkhead.service.metrics.host", "interface of the /metrics listener (with --metrics-port)"),
      ("metrics-port", "bulkhead.service.metrics.port", metricsPortHelp),
      ("max-connections", "bulkhead.service.server.max-connections", "connections served at once"),
      ("backlog", "bulkhead.service.server.backlog", "listen backlog"),
      ("transport", "bulkhead.service.server.transport", "what carries the sockets: selector | pekko"),
      ("blocking-pool-size", "bulkhead.dispatch.blocking-pool.thread-pool-executor.fixed-pool-size",
        "threads of the blocking pool"),
      ("parallelism-factor", s"$fj.parallelism-factor", "default dispatcher threads per core"),
      ("parallelism-min", s"$fj.parallelism-min", "default dispatcher minimum threads"),
      ("parallelism-max", s"$fj.parallelism-max", "default dispatcher maximum threads"),
      ("routees", "bulkhead.enrichment.routees", "routees of the enrichment router"),
      ("max-in-flight", "bulkhead.enrichment.max-in-flight", "enrichment requests in flight before shedding"),
      ("soap-endpoint", "bulkhead.enrichment.soap.endpoint", "the third party's SOAP URL"),
      ("soap-mode", "bulkhead.enrichment.soap.mode", "non-blocking | blocking | virtual"),
      ("redis-uri", "bulkhead.enrichment.redis.uri", "Redis URI, without a password (see --redis-password-file)"),
      ("redis-password-file", "bulkhead.enrichment.redis.password-file",
        s"a file holding the Redis password (else the environment variable ${EnrichmentSettings.RedisPasswordVariable})"),
      ("redis-connections", "bulkhead.enrichment.redis.connections", "per-routee | shared"))

  private val builder = OParser.builder[Options]
  private val parser =
    import builder.*
    def key(flag: String, configKey: String, text: String) =
      opt[String](flag).valueName("<value>").text(s"$text ($configKey)").action((v, o) => o.set(configKey, v))
    val port = opt[Int]("port").valueName("<port>").text("TCP port, 0 for any free port (bulkhead.service.port)")
      .validate(p => if p >= 0 && p <= 65535 then success else failure(s"--port must be 0..65535, was $p"))
      .action((v, o) => o.set("bulkhead.service.port", v))
    val others = Seq(
      opt[Unit]("allow-default-dispatcher-work").text("run /work/default, which blocks the threads that serve " +
          "every request (the seeds' anti-pattern; refused with 403 otherwise) " +
          "(bulkhead.service.work.allow-default-dispatcher)")
        .action((_, o) => o.set("bulkhead.service.work.allow-default-dispatcher", true)),
      opt[Unit]("expose-metrics").text("serve /metrics on a non-loopback --host (bulkhead.service.metrics.expose)")
        .action((_, o) => o.set("bulkhead.service.metrics.expose", true)),
      key("cluster-port", "bulkhead.cluster.port",
        "join a Pekko Cluster: this node's Artery (remoting) port, 0 for any free one; default -1: a single node"),
      key("cluster-host", "bulkhead.cluster.host", "the address other nodes reach this node at (default 127.0.0.1)"),
      opt[String]("seed-node").unbounded().valueName("<host:port>")
        .text("a cluster node to join through, repeatable; none: this node starts the cluster " +
          "(bulkhead.cluster.seed-nodes)")
        .action((v, o) => o.copy(seedNodes = o.seedNodes :+ v)),
      opt[File]("config").valueName("<file.conf>").text("a HOCON file whose keys override reference.conf")
        .validate(f => if f.isFile then success else failure(s"--config: no such file: $f"))
        .action((f, o) => o.copy(file = Some(f))),
      opt[String]("set").unbounded().valueName("key=value").text("override any configuration key")
        .validate(kv => if kv.contains('=') && kv.indexOf('=') > 0 then success
          else failure(s"--set takes key=value, was '$kv'"))
        .action { (kv, o) =>
          val i = kv.indexOf('=')
          o.set(kv.take(i).trim, kv.drop(i + 1).trim)
        },
      help("help").text("print this help"))
    OParser.sequence(programName("bulkhead serve"),
      (head("bulkhead service: Pekko HTTP with named, tunable pools") +: port +: keyFlags.map(key.tupled)) ++ others*)

  /**
   * The configuration the flags describe. `Left` carries what to print: scopt has already printed its own errors
   * (an empty message then); an override of a key that no reference.conf declares is refused with the key named.
   */
  def parse(args: Seq[String]): Either[String, Config] =
    OParser.parse(parser, args, Options()) match
      case None => Left("")
      case Some(o) =>
        val reference = ConfigFactory.defaultReference()
        o.overrides.map(_._1).find(k => !reference.hasPathOrNull(k)) match
          case Some(unknown) => Left(s"unknown configuration key '$unknown' (see the reference.conf files)")
          case None if o.overrides.exists((k, v) => k.endsWith(".redis.uri") && Redaction.hasCredentials(v)) =>
            Left("the Redis URI must not carry a password on the command line, where every user of this machine " +
              "can read it (/proc/PID/cmdline): put the password in a file (--redis-password-file FILE) or in the " +
              s"environment variable ${EnrichmentSettings.RedisPasswordVariable}, and give the URI without it")
          case None =>
            val seeds =
              if o.seedNodes.isEmpty then ConfigFactory.empty()
              else ConfigFactory.empty().withValue("bulkhead.cluster.seed-nodes",
                ConfigValueFactory.fromIterable(o.seedNodes.asJava, "command-line flag --seed-node"))
            val flags = o.overrides.foldLeft(seeds) { case (c, (k, v)) =>
              c.withValue(k, ConfigValueFactory.fromAnyRef(v, "command-line flag"))
            }
            val file = o.file.map(ConfigFactory.parseFile).getOrElse(ConfigFactory.empty())
            Right(ConfigFactory.defaultOverrides()
              .withFallback(flags)
              .withFallback(file)
              .withFallback(ConfigFactory.defaultApplication())
              .withFallback(reference)
              .resolve())
