package bulkhead.service

import bulkhead.service.config.{RedisConnections, ServiceSettings, SocketTransport, SoapMode}

import java.lang.management.ManagementFactory

/**
 * Whether the process may open the files its settings need at once: every connection it serves (max-connections),
 * those it accepts only to refuse (refused-connections), those a listener holds beyond them (up to accept-batch), its
 * outbound sockets (the SOAP client's slots, the Redis
 * connections) and a margin for the rest. Short of it, accept fails once the limit is reached and Pekko logs an
 * error and re-arms at once, for as long as the load lasts: `serve` refuses to start instead.
 */
object DescriptorBudget:
  /** Descriptors besides sockets: the JDK's jars and libraries, the log, the listeners, epoll and pipe descriptors. */
  val FilesMargin = 256

  /** The descriptors `settings` need at most, by use, in the order the refusal names them. */
  def needs(settings: ServiceSettings): Seq[(String, Int)] =
    val e = settings.enrichment
    val redis = e.redis.connections match
      case RedisConnections.PerRoutee => e.routees
      case RedisConnections.Shared => 1
    val (held, heldLess) = settings.server.transport match
      case SocketTransport.Selector => (settings.server.acceptBatch, "")
      case SocketTransport.Pekko => (settings.server.acceptBatch - 1, " - 1")
    Seq(
      "bulkhead.service.server.max-connections" -> settings.server.maxConnections,
      "bulkhead.service.server.refused-connections" -> settings.server.refusedConnections,
      // Beyond the server's demand a listener holds up to one batch on the selector transport (SelectorBindSource),
      // one batch less one on Pekko's (BatchAcceptSource).
      s"connections held by the listeners (bulkhead.service.server.accept-batch$heldLess)" ->
        held * settings.server.listeners,
      s"SOAP connections (bulkhead.enrichment.soap.${e.soap.mode match
          case SoapMode.Blocking => "work-queue.max"
          case SoapMode.NonBlocking | SoapMode.Virtual => "max-connections"})" -> e.soap.slots,
      s"Redis connections (bulkhead.enrichment.redis.connections=${e.redis.connections.key})" -> redis,
      "other files (jars, logs, listeners)" -> FilesMargin)

  /** Right when `limit` open files hold what `settings` need; Left with the limit, the sum and what to change. */
  def check(limit: Long, settings: ServiceSettings): Either[String, Unit] =
    val parts = needs(settings)
    val sum = parts.map(_._2.toLong).sum
    if sum <= limit then Right(())
    else Left(s"this process may open $limit files (ulimit -n) but its settings need up to $sum: " +
      parts.map((what, n) => s"$n $what").mkString(" + ") +
      s"; raise ulimit -n to at least $sum, or lower bulkhead.service.server.max-connections (--set key=value)")

  /** The process's limit on open files, where the JVM tells it (Unix). */
  def processLimit(): Option[Long] =
    ManagementFactory.getOperatingSystemMXBean match
      case os: com.sun.management.UnixOperatingSystemMXBean => Some(os.getMaxFileDescriptorCount)
      case _ => None
