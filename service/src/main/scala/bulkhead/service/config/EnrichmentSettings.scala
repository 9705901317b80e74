package bulkhead.service.config

import bulkhead.service.dispatch.WorkQueueSettings
import com.typesafe.config.Config

import scala.concurrent.duration.*

/** How the SOAP client waits for the third party. */
enum SoapMode(val key: String):
  /** Pekko HTTP client: no thread is held while the third party thinks. */
  case NonBlocking extends SoapMode("non-blocking")
  /** A blocking HTTP client on a bounded work queue of 5..25 threads, as CXF's `default-workqueue` runs one. */
  case Blocking extends SoapMode("blocking")
  /** The same blocking client, each call on its own virtual thread (JDK 21+). */
  case Virtual extends SoapMode("virtual")

/** Whether routees share one Redis connection or each has its own (20 routees, 20 connections, as first measured). */
enum RedisConnections(val key: String):
  case PerRoutee extends RedisConnections("per-routee")
  case Shared extends RedisConnections("shared")

/**
 * Admission to the third party: calls wait at most `maxWait` for a slot (a connection, a work-queue thread, a permit),
 * at most `queue` of them; the others are refused at once.
 */
final case class AdmissionSettings(queue: Int, maxWait: FiniteDuration)

/** Pekko's circuit breaker around the third party. */
final case class BreakerSettings(maxFailures: Int, callTimeout: FiniteDuration, resetTimeout: FiniteDuration)

final case class SoapSettings(
    endpoint: String,
    mode: SoapMode,
    /** What carries the non-blocking client's connections. */
    transport: SocketTransport,
    requestTimeout: FiniteDuration,
    connectTimeout: FiniteDuration,
    connectionIdleTimeout: FiniteDuration,
    maxConnections: Int,
    maxResponseBytes: Int,
    workQueue: WorkQueueSettings,
    admission: AdmissionSettings,
    breaker: BreakerSettings):
  /**
   * Calls in flight at once: the non-blocking client's connections, the work queue's threads, or the permits of
   * virtual threads.
   */
  def slots: Int = mode match
    case SoapMode.Blocking => workQueue.max
    case SoapMode.NonBlocking | SoapMode.Virtual => maxConnections

/** The profile store; `password`, when set, comes from a file or the environment, never from the command line. */
final case class RedisSettings(uri: String, password: Option[Secret], connections: RedisConnections,
    timeout: FiniteDuration, reconnectMaxDelay: FiniteDuration,
    /** Commands a connection holds unanswered at most (Lettuce's request queue): the pipeline's max-in-flight. */
    requestQueueSize: Int,
    /** TCP keepalive: idle time before the first probe, and between probes (3 unanswered probes end the socket). */
    keepAliveIdle: FiniteDuration, keepAliveInterval: FiniteDuration)

/** The REST -> SOAP -> Redis pipeline: a third party of about 1 s latency, then a Redis profile, merged. */
final case class EnrichmentSettings(
    routees: Int,
    maxInFlight: Int,
    retryAfter: FiniteDuration,
    soap: SoapSettings,
    redis: RedisSettings)

object EnrichmentSettings:
  /** The environment variable that may hold the Redis password (when no password file is configured). */
  val RedisPasswordVariable = "BULKHEAD_REDIS_PASSWORD"

  def apply(config: Config, env: Map[String, String] = sys.env): EnrichmentSettings = read(SettingsReader(config), env)

  /**
   * Reads and validates with the reader of the whole service, so that the first bad key stops the start; the Redis
   * password comes from `password-file` or `env`.
   */
  private[config] def read(r: SettingsReader, env: Map[String, String]): EnrichmentSettings =
    val e = "bulkhead.enrichment"
    val cb = s"$e.soap.circuit-breaker"
    val wqMax = r.int(s"$e.soap.work-queue.max", 1, 10_000)
    // Admission hands the work queue no more calls than it has threads: its queue holds a call only for the moment a
    // thread takes to come back from the previous one.
    val wq = WorkQueueSettings(
      core = r.int(s"$e.soap.work-queue.core", 0, 10_000),
      max = wqMax,
      queue = wqMax,
      keepAlive = r.duration(s"$e.soap.work-queue.keep-alive", 1.millis))
    r.check(s"$e.soap.work-queue.max", wq.max >= wq.core, s"must be at least work-queue.core (${wq.core})")
    val requestTimeout = r.duration(s"$e.soap.request-timeout", 1.millis)
    val endpoint = r.nonEmpty(s"$e.soap.endpoint")
    r.check(s"$e.soap.endpoint", endpoint.startsWith("http://") || endpoint.startsWith("https://"),
      s"must be an http:// or https:// URL, was '$endpoint'")
    val uri = r.nonEmpty(s"$e.redis.uri")
    r.check(s"$e.redis.uri", uri.startsWith("redis://") || uri.startsWith("rediss://"),
      "must be a redis:// or rediss:// URI")
    // Lettuce's own message would quote the URI, password included: the key is named, the value is not.
    r.check(s"$e.redis.uri", scala.util.Try(io.lettuce.core.RedisURI.create(uri)).isSuccess,
      "is not a valid Redis URI (redis[s]://[:password@]host[:port][/database])")
    val passwordFile = r.string(s"$e.redis.password-file")
    val password =
      if passwordFile.nonEmpty then
        val read = scala.util.Try(java.nio.file.Files.readString(java.nio.file.Path.of(passwordFile)).stripLineEnd)
        r.check(s"$e.redis.password-file", read.isSuccess, s"cannot read $passwordFile")
        read.toOption.filter(_.nonEmpty).map(Secret(_))
      else env.get(RedisPasswordVariable).filter(_.nonEmpty).map(Secret(_))
    val maxInFlight = r.int(s"$e.max-in-flight", 1, 1_000_000)
    val redis = RedisSettings(uri, password, r.oneOf(s"$e.redis.connections", RedisConnections.values.toSeq)(_.key),
      r.duration(s"$e.redis.timeout", 1.millis), r.duration(s"$e.redis.reconnect-max-delay", 10.millis),
      requestQueueSize = maxInFlight,
      keepAliveIdle = r.duration(s"$e.redis.keepalive-idle", 1.second),
      keepAliveInterval = r.duration(s"$e.redis.keepalive-interval", 1.second))
    EnrichmentSettings(
      routees = r.int(s"$e.routees", 1, 10_000),
      maxInFlight = maxInFlight,
      retryAfter = r.duration(s"$e.retry-after", 1.second),
      soap = SoapSettings(
        endpoint = endpoint,
        mode = r.oneOf(s"$e.soap.mode", SoapMode.values.toSeq)(_.key),
        transport = r.oneOf(s"$e.soap.transport", SocketTransport.values.toSeq)(_.key),
        requestTimeout = requestTimeout,
        connectTimeout = r.duration(s"$e.soap.connect-timeout", 1.millis),
        connectionIdleTimeout = r.duration(s"$e.soap.connection-idle-timeout", 1.second),
        maxConnections = r.int(s"$e.soap.max-connections", 1, 100_000),
        maxResponseBytes = r.int(s"$e.soap.max-response-bytes", 256, 64 * 1024 * 1024),
        workQueue = wq,
        admission = AdmissionSettings(r.int(s"$e.soap.admission.queue", 0, 1_000_000),
          r.duration(s"$e.soap.admission.max-wait", Duration.Zero)),
        breaker = BreakerSettings(r.int(s"$cb.max-failures", 1), r.duration(s"$cb.call-timeout", 1.millis),
          r.duration(s"$cb.reset-timeout", 1.millis))),
      redis = redis)
