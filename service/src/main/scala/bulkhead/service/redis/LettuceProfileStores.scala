package bulkhead.service.redis

import bulkhead.service.config.{RedisConnections, RedisSettings}
import bulkhead.service.dispatch.NamedThreads
import bulkhead.service.enrichment.{LoyaltyProfile, ProfileStore, ProfileStores, ProfileUnavailable}
import io.lettuce.core.api.StatefulRedisConnection
import io.lettuce.core.codec.StringCodec
import io.lettuce.core.resource.{ClientResources, Delay, ThreadFactoryProvider}
import io.lettuce.core.{ClientOptions, RedisClient, RedisURI, SocketOptions, TimeoutOptions}

import java.time.Duration
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.{AtomicLong, AtomicReference}
import scala.concurrent.{ExecutionContext, Future}
import scala.jdk.CollectionConverters.*
import scala.jdk.FutureConverters.*
import scala.util.control.NonFatal

/**
 * Profiles in Redis through Lettuce's async API. Lettuce's event-loop threads are named `bulkhead.redis.<pool>-N`.
 * Commands fail at once while a connection is down (no silent queueing), and while a command that timed out has not
 * been followed by an answer (see `Handle.unanswered`); connections come back by themselves.
 */
final class LettuceProfileStores(settings: RedisSettings, routees: Int)(using ec: ExecutionContext)
    extends ProfileStores:

  private val resources = ClientResources.builder()
    // Lettuce's floor for both (DefaultClientResources.MIN_IO_THREADS, MIN_COMPUTATION_THREADS): 1 is raised to 2.
    .ioThreadPoolSize(2)
    .computationThreadPoolSize(2)
    .threadFactoryProvider(LettuceProfileStores.namedThreads)
    // Lettuce's default backoff grows to 30 s: after a 10 s Redis outage the next attempt could be 8 s away, so
    // answers would stay degraded for seconds after Redis is back. Capped at reconnect-max-delay.
    .reconnectDelay(Delay.exponential(Duration.ofMillis(10), Duration.ofMillis(settings.reconnectMaxDelay.toMillis),
      2, TimeUnit.MILLISECONDS))
    .build()

  private val client = RedisClient.create(resources)
  client.setOptions(ClientOptions.builder()
    .autoReconnect(true)
    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
    .timeoutOptions(TimeoutOptions.enabled(Duration.ofMillis(settings.timeout.toMillis)))
    // Lettuce's queue is unbounded by default: a timed-out command stays queued until Redis answers, so a Redis that
    // accepts and never answers would make it grow for ever. Above the bound a command fails at once.
    .requestQueueSize(settings.requestQueueSize)
    .socketOptions(LettuceProfileStores.socketOptions(settings))
    .build())

  /** The options the client runs with (what reference.conf asked for, as Lettuce holds them). */
  def clientOptions: ClientOptions = client.getOptions

  private val handles: IndexedSeq[Handle] = settings.connections match
    case RedisConnections.PerRoutee => IndexedSeq.tabulate(routees)(i => Handle(s"bulkhead-routee-${i + 1}"))
    case RedisConnections.Shared => IndexedSeq(Handle("bulkhead-shared"))
  handles.foreach(_.connectIfDue())

  def forRoutee(index: Int): ProfileStore = handles(index % handles.size)

  def openConnections: Int = handles.count(_.isOpen)

  def close(): Unit =
    handles.foreach(_.close())
    client.shutdown(0, 2, TimeUnit.SECONDS)
    resources.shutdown(0, 2, TimeUnit.SECONDS)

  /** One Redis connection, opened at start and re-opened on demand (at most once a second) if Redis was down then. */
  private final class Handle(name: String) extends ProfileStore:
    private val connection = AtomicReference[Option[StatefulRedisConnection[String, String]]](None)
    private val lastAttempt = AtomicLong(0L)
    private val uri =
      val parsed = RedisURI.create(settings.uri)
      val u = settings.password.fold(parsed)(p => RedisURI.builder(parsed).withPassword(p.reveal.toCharArray).build())
      u.setClientName(name)
      u.setTimeout(Duration.ofMillis(settings.timeout.toMillis))
      u

    def isOpen: Boolean = connection.get.exists(_.isOpen)

    def connectIfDue(): Unit =
      val now = System.nanoTime()
      val last = lastAttempt.get
      if connection.get.isEmpty && (last == 0L || now - last > 1_000_000_000L) && lastAttempt.compareAndSet(last, now)
      then
        client.connectAsync(StringCodec.UTF8, uri).asScala.foreach { c =>
          if !connection.compareAndSet(None, Some(c)) then c.closeAsync()
        }

    def profile(id: Int): Future[Either[ProfileUnavailable, Option[LoyaltyProfile]]] =
      connection.get match
        case None =>
          connectIfDue()
          Future.successful(Left(ProfileUnavailable("no connection to Redis")))
        case Some(_) if unanswered.get => Future.successful(Left(held))
        case Some(c) =>
          try
            // optimization: read where the answer arrives (the client's I/O thread) in one step: saves two dispatcher
            // tasks per profile.
            c.async().hgetall(s"customer:$id").asScala.transform {
              case scala.util.Success(fields) =>
                scala.util.Success(
                  try Right(LettuceProfileStores.read(fields.asScala.toMap))
                  catch case NonFatal(e) => Left(ProfileUnavailable(LettuceProfileStores.describe(e))))
              case scala.util.Failure(e) =>
                if LettuceProfileStores.isTimeout(e) then holdBack(c)
                scala.util.Success(Left(ProfileUnavailable(LettuceProfileStores.describe(e))))
            }(ExecutionContext.parasitic)
          catch case NonFatal(e) => Future.successful(Left(ProfileUnavailable(LettuceProfileStores.describe(e))))

    /**
     * Set when a command timed out on this connection: Redis holds its commands unanswered (stopped, or swamped), so
     * none is sent until it answers a PING sent behind them. Each command sent meanwhile would wait out the timeout,
     * then be run by Redis when it comes back, for a caller long answered degraded: a Redis stopped for 15 s under
     * 100 users got 900 such stale commands (~12,000 at that rate in 2 minutes), and each answer waited the 1 s
     * timeout. Held back, the answers are degraded at once, Redis runs only the commands that were in flight when it
     * stopped (and a PING a timeout), and the first answer to the PING opens the connection again, within milliseconds
     * of Redis coming back.
     */
    private val unanswered = java.util.concurrent.atomic.AtomicBoolean(false)
    private val held = ProfileUnavailable(s"Redis has not answered for ${settings.timeout}: waiting for it to answer")

    private def holdBack(c: StatefulRedisConnection[String, String]): Unit =
      if unanswered.compareAndSet(false, true) then probe(c)

    /** PINGs until Redis answers one (a PING that fails at once, the connection down, is tried again 100 ms later). */
    private def probe(c: StatefulRedisConnection[String, String]): Unit =
      try
        c.async().ping().asScala.onComplete {
          case scala.util.Success(_) => unanswered.set(false)
          case scala.util.Failure(_) if !c.isOpen && connection.get.isEmpty => unanswered.set(false)
          case scala.util.Failure(_) =>
            try resources.eventExecutorGroup().schedule((() => probe(c)): Runnable, 100, TimeUnit.MILLISECONDS)
            catch case NonFatal(_) => unanswered.set(false) // the client is shutting down
        }(ExecutionContext.parasitic)
      catch case NonFatal(_) => unanswered.set(false)

    def close(): Unit = connection.getAndSet(None).foreach(_.close())

object LettuceProfileStores:
  /**
   * Keepalive with the idle time, interval and count (NIO applies them through the JDK's extended socket options).
   * No TCP user timeout: Lettuce applies `TcpUserTimeoutOptions` only on its epoll and io_uring transports, and the
   * service ships neither netty native transport (Lettuce runs on NIO); a paused Redis is bounded by the command
   * timeout and the request queue instead.
   */
  def socketOptions(settings: RedisSettings): SocketOptions =
    SocketOptions.builder()
      .keepAlive(SocketOptions.KeepAliveOptions.builder().enable()
        .idle(Duration.ofMillis(settings.keepAliveIdle.toMillis))
        .interval(Duration.ofMillis(settings.keepAliveInterval.toMillis))
        .count(3)
        .build())
      .build()

  private val namedThreads: ThreadFactoryProvider = poolName => NamedThreads(s"bulkhead.redis.$poolName")

  /** A hash with the three fields is a profile; an empty hash is a customer without one. */
  def read(fields: Map[String, String]): Option[LoyaltyProfile] =
    for
      points <- fields.get("points").flatMap(_.toLongOption)
      tier <- fields.get("tier")
      lastOrder <- fields.get("lastOrder")
    yield LoyaltyProfile(points, tier, lastOrder)

  /** Whether a command failed at its timeout (Lettuce's, or the same wrapped). */
  private def isTimeout(e: Throwable): Boolean =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).take(8)
      .exists(_.isInstanceOf[io.lettuce.core.RedisCommandTimeoutException])

  private def describe(e: Throwable): String =
    Option(e.getMessage).getOrElse(e.getClass.getSimpleName).take(200)
