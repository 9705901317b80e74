package bulkhead.service.config

import bulkhead.service.dispatch.Pools
import com.typesafe.config.Config

import scala.concurrent.duration.*

/** Server socket settings: what it takes to hold 10,000 connections (see reference.conf). */
final case class ServerSettings(
    maxConnections: Int,
    backlog: Int,
    refusedConnections: Int,
    idleTimeout: FiniteDuration,
    requestHeadTimeout: FiniteDuration,
    /** A request head's bytes (request line and headers) above which the client gets 431 and the connection closes. */
    maxHeadBytes: Int,
    /** The bytes of unfinished request heads on every connection together above which a head gets 503. */
    maxHeadBytesInProgress: Long,
    requestTimeout: FiniteDuration,
    pipeliningLimit: Int,
    listeners: Int,
    /** Connections each listener accepts per round trip (Pekko's transport: 1 is Pekko's own bind). */
    acceptBatch: Int,
    transport: SocketTransport,
    /** The selector transport's threads. */
    ioThreads: Int,
    /**
     * The selector transport stops accepting while a new connection waits longer than this for the default
     * dispatcher (Inf: never).
     */
    acceptPauseAbove: Duration,
    /** Pekko's TCP read size (`pekko.io.tcp.direct-buffer-size`): what a read of Pekko's transport takes at most. */
    pekkoReadBytes: Int,
    /** /hello and /work/{mode} answered outside the routing tree. */
    fastPath: Boolean,
    /** Whether `serve` refuses a heap short of [[bulkhead.service.HeapBudget]] (else it starts with a warning). */
    refuseSmallHeap: Boolean = true)

/** Requests of each `/work/{mode}` in flight at once, above which the service answers 503 at once. */
final case class WorkLimits(default: Int, pool: Int, virtual: Int, async: Int)

/** Bounds of the `/work/{mode}` routes. */
final case class WorkSettings(defaultMs: Int, maxMs: Int, allowDefaultDispatcher: Boolean, limits: WorkLimits,
    retryAfter: FiniteDuration)

/** The pool sizes that bound throughput, read here so that a bad size stops the start with its key named. */
final case class PoolSettings(blockingPoolSize: Int, blockingQueueSize: Int, defaultParallelismFactor: Double,
    defaultParallelismMin: Int,
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
    retryAfter: FiniteDuration,
    work: WorkSettings,
    pools: PoolSettings,
    enrichment: EnrichmentSettings,
    cluster: ClusterSettings = ClusterSettings.SingleNode)

object ServiceSettings:

  /** Reads and validates; throws `ConfigException` naming the first bad key. */
  def apply(config: Config): ServiceSettings = read(config, sys.env)

  /** As [[apply]], with the environment to read secrets from (the Redis password). */
  def read(config: Config, env: Map[String, String]): ServiceSettings =
    val r = SettingsReader(config)
    val s = "bulkhead.service"
    val server = ServerSettings(
      maxConnections = r.int(s"$s.server.max-connections", 1, 1_000_000),
      backlog = r.int(s"$s.server.backlog", 1, 1_000_000),
      refusedConnections = r.int(s"$s.server.refused-connections", 0, 1_000_000),
      idleTimeout = r.duration(s"$s.server.idle-timeout", 1.second),
      requestHeadTimeout = r.duration(s"$s.server.request-head-timeout", 100.millis),
      maxHeadBytes = r.bytes(s"$s.server.max-head-bytes", 1024, 16L << 20).toInt,
      maxHeadBytesInProgress = r.bytes(s"$s.server.max-head-bytes-in-progress", 1024, 1L << 40),
      requestTimeout = r.duration(s"$s.server.request-timeout", 100.millis),
      pipeliningLimit = r.int(s"$s.server.pipelining-limit", 1, 1024),
      listeners = r.int(s"$s.server.listeners", 1, 64),
      acceptBatch = r.int(s"$s.server.accept-batch", 1, 1024),
      transport = r.oneOf(s"$s.server.transport", SocketTransport.values.toSeq)(_.key),
      ioThreads = r.int(s"$s.server.io-threads", 1, 64),
      acceptPauseAbove = r.duration(s"$s.server.accept-pause-above", Duration.Zero) match
        case d if d == Duration.Zero => Duration.Inf
        case d => d,
      pekkoReadBytes = r.bytes("pekko.io.tcp.direct-buffer-size", 1, Int.MaxValue).toInt,
      fastPath = r.boolean(s"$s.server.fast-path"),
      refuseSmallHeap = r.boolean(s"$s.server.refuse-small-heap"))
    val w = s"$s.work"
    val work = WorkSettings(
      defaultMs = r.int(s"$w.default-ms", 0, 3_600_000),
      maxMs = r.int(s"$w.max-ms", 0, 3_600_000),
      allowDefaultDispatcher = r.boolean(s"$w.allow-default-dispatcher"),
      limits = WorkLimits(
        default = r.int(s"$w.max-in-flight.default", 1, 1_000_000),
        pool = r.int(s"$w.max-in-flight.pool", 1, 1_000_000),
        virtual = r.int(s"$w.max-in-flight.virtual", 1, 1_000_000),
        async = r.int(s"$w.max-in-flight.async", 1, 1_000_000)),
      retryAfter = r.duration(s"$s.retry-after", 1.second))
    r.check(s"$s.work.default-ms", work.defaultMs <= work.maxMs, s"must not exceed $s.work.max-ms (${work.maxMs})")
    val fj = "pekko.actor.default-dispatcher.fork-join-executor"
    val pools = PoolSettings(
      blockingPoolSize = r.int(s"${Pools.Blocking.configPath}.thread-pool-executor.fixed-pool-size", 1, 32_768),
      blockingQueueSize = r.int(s"${Pools.Blocking.configPath}.thread-pool-executor.task-queue-size", 1, 10_000_000),
      defaultParallelismFactor = r.double(s"$fj.parallelism-factor", 0.0001),
      defaultParallelismMin = r.int(s"$fj.parallelism-min", 1, 32_767),
      defaultParallelismMax = r.int(s"$fj.parallelism-max", 1, 32_767))
    // A full blocking pool refuses work (503), and must never need to: the admission bound of /work/pool must fit in
    // its queue alone. Threads do not add room: a task leaves the in-flight count as its thread finishes it, a moment
    // before that thread takes the next task from the queue, so a burst can find every thread still busy and the
    // queue holding as many tasks as are in flight (seen under a flood with a bound of threads + queue).
    r.check(s"$w.max-in-flight.pool", work.limits.pool <= pools.blockingQueueSize,
      s"must not exceed the blocking pool's task-queue-size (${pools.blockingQueueSize}), was ${work.limits.pool}")
    r.check(s"$fj.parallelism-max", pools.defaultParallelismMax >= pools.defaultParallelismMin,
      s"must be at least parallelism-min (${pools.defaultParallelismMin})")
    val portFile = r.string(s"$s.port-file")
    val host = r.nonEmpty(s"$s.host")
    val metrics = r.int(s"$s.metrics.port", -1, 65535) match
      case -1 => MetricsListener.OnServiceListener
      case port => MetricsListener.Separate(r.nonEmpty(s"$s.metrics.host"), port)
    r.check(s"$s.metrics.port", metrics != MetricsListener.OnServiceListener || isLoopback(host) ||
      r.boolean(s"$s.metrics.expose"),
      s"the service binds $host, not loopback, and /metrics would be served there to anyone who can reach it: give " +
        "/metrics its own listener with --metrics-port (on --metrics-host, 127.0.0.1 by default), or pass " +
        "--expose-metrics to serve it on the public listener on purpose")
    ServiceSettings(
      host = host,
      port = r.int(s"$s.port", 0, 65535),
      portFile = Option(portFile).filter(_.nonEmpty),
      metrics = metrics,
      requestMeters = r.boolean(s"$s.metrics.per-request"),
      server = server,
      shutdownDeadline = r.duration(s"$s.shutdown-deadline", 0.seconds),
      retryAfter = work.retryAfter,
      work = work,
      pools = pools,
      enrichment = EnrichmentSettings.read(r, env),
      cluster = ClusterSettings(config))

  /** True when every address the host name resolves to is a loopback address. */
  def isLoopback(host: String): Boolean =
    try java.net.InetAddress.getAllByName(host).forall(_.isLoopbackAddress)
    catch case _: java.net.UnknownHostException => false
