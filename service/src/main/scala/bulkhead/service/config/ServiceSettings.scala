package bulkhead.service.config

import bulkhead.service.dispatch.Pools
import com.typesafe.config.Config

import scala.concurrent.duration.*

/** Server socket settings: what it takes to hold 10,000 connections (see reference.conf). */
final case class ServerSettings(
    maxConnections: Int,
    backlog: Int,
    idleTimeout: FiniteDuration,
    requestTimeout: FiniteDuration,
    pipeliningLimit: Int,
    listeners: Int,
    /** /hello and /work/{mode} answered outside the routing tree. */
    fastPath: Boolean)

/** Bounds of the `/work/{mode}` routes. */
final case class WorkSettings(defaultMs: Int, maxMs: Int)

/** The pool sizes that bound throughput, read here so that a bad size stops the start with its key named. */
final case class PoolSettings(blockingPoolSize: Int, defaultParallelismFactor: Double, defaultParallelismMin: Int,
    defaultParallelismMax: Int)

/** Where /metrics is served: on the service's listener, or on its own (e.g. loopback only, or a management network). */
enum MetricsListener:
  case OnServiceListener
  case Separate(host: String, port: Int)

/** Everything the service reads from configuration, read once and validated. */
final case class ServiceSettings(
    host: String,
    port: Int,
    portFile: Option[String],
    metrics: MetricsListener,
    /** Every answered request counted and timed in /metrics. */
    requestMeters: Boolean,
    server: ServerSettings,
    shutdownDeadline: FiniteDuration,
    work: WorkSettings,
    pools: PoolSettings,
    enrichment: EnrichmentSettings,
    cluster: ClusterSettings = ClusterSettings.SingleNode)

object ServiceSettings:

  /** Reads and validates; throws `ConfigException` naming the first bad key. */
  def apply(config: Config): ServiceSettings =
    val r = SettingsReader(config)
    val s = "bulkhead.service"
    val server = ServerSettings(
      maxConnections = r.int(s"$s.server.max-connections", 1, 1_000_000),
      backlog = r.int(s"$s.server.backlog", 1, 1_000_000),
      idleTimeout = r.duration(s"$s.server.idle-timeout", 1.second),
      requestTimeout = r.duration(s"$s.server.request-timeout", 100.millis),
      pipeliningLimit = r.int(s"$s.server.pipelining-limit", 1, 1024),
      listeners = r.int(s"$s.server.listeners", 1, 64),
      fastPath = r.boolean(s"$s.server.fast-path"))
    val work = WorkSettings(r.int(s"$s.work.default-ms", 0, 3_600_000), r.int(s"$s.work.max-ms", 0, 3_600_000))
    r.check(s"$s.work.default-ms", work.defaultMs <= work.maxMs, s"must not exceed $s.work.max-ms (${work.maxMs})")
    val fj = "pekko.actor.default-dispatcher.fork-join-executor"
    val pools = PoolSettings(
      blockingPoolSize = r.int(s"${Pools.Blocking.configPath}.thread-pool-executor.fixed-pool-size", 1, 32_768),
      defaultParallelismFactor = r.double(s"$fj.parallelism-factor", 0.0001),
      defaultParallelismMin = r.int(s"$fj.parallelism-min", 1, 32_767),
      defaultParallelismMax = r.int(s"$fj.parallelism-max", 1, 32_767))
    r.check(s"$fj.parallelism-max", pools.defaultParallelismMax >= pools.defaultParallelismMin,
      s"must be at least parallelism-min (${pools.defaultParallelismMin})")
    val portFile = r.string(s"$s.port-file")
    ServiceSettings(
      host = r.nonEmpty(s"$s.host"),
      port = r.int(s"$s.port", 0, 65535),
      portFile = Option(portFile).filter(_.nonEmpty),
      metrics = r.int(s"$s.metrics.port", -1, 65535) match
        case -1 => MetricsListener.OnServiceListener
        case port => MetricsListener.Separate(r.nonEmpty(s"$s.metrics.host"), port),
      requestMeters = r.boolean(s"$s.metrics.per-request"),
      server = server,
      shutdownDeadline = r.duration(s"$s.shutdown-deadline", 0.seconds),
      work = work,
      pools = pools,
      enrichment = EnrichmentSettings.read(r),
      cluster = ClusterSettings(config))
