package bulkhead.service.dispatch

import org.apache.pekko.actor.typed.{ActorSystem, DispatcherSelector}

import scala.concurrent.ExecutionContextExecutor

/** A pool of the service: its configuration path is its name, in thread names and in /metrics. */
final case class PoolName(configPath: String):
  /** The label used in /metrics and reports: the last segment of the path. */
  def label: String = configPath.split('.').last

/** Every pool of the service, declared in one place. */
object Pools:
  /** Pekko HTTP, the actors and all non-blocking code. `/work/default` blocks it on purpose. */
  val Default: PoolName = PoolName("pekko.actor.default-dispatcher")
  /** The dedicated pool for blocking work: one thread per in-flight blocking call. */
  val Blocking: PoolName = PoolName("bulkhead.dispatch.blocking-pool")
  /** Virtual threads (JDK 21+) for blocking work. */
  val Virtual: PoolName = PoolName("bulkhead.dispatch.virtual-pool")
  /** The bounded work queue of the blocking SOAP client (what CXF calls its `default-workqueue`). */
  val SoapWorkQueue: PoolName = PoolName("bulkhead.soap.work-queue")
  /**
   * The JDK HTTP client's own threads under the blocking SOAP client (it delivers answers on them). Fixed and named:
   * the client's default executor starts threads on demand and retires them a minute later, so a thread count of the
   * service moved with the third party's load.
   */
  val SoapHttpClient: PoolName = PoolName("bulkhead.soap.http-client")
  /**
   * Pekko's own pool for blocking IO: here the DNS resolution of new connections to the third party. Sized in
   * reference.conf (2 threads, kept) so that the service's thread count does not move with connection churn.
   */
  val PekkoBlockingIo: PoolName = PoolName("pekko.actor.default-blocking-io-dispatcher")
  /**
   * The server's selector threads (`server.transport = selector`): they wait on the sockets, accept and read; the
   * connections' streams run on the default dispatcher.
   */
  val ServerIo: PoolName = PoolName("bulkhead.service.server.io")
  /** The SOAP client's selector thread (`soap.transport = selector`): it reads the third party's answers. */
  val SoapIo: PoolName = PoolName("bulkhead.soap.io")
  /** The timer thread that completes `/work/async` (see [[TimerPool]]). */
  val Timer: PoolName = PoolName("bulkhead.dispatch.timer")

  val dispatchers: Seq[PoolName] = Seq(Default, Blocking, Virtual)

  /** True when this JVM can run virtual threads (JDK 21+). */
  val virtualThreadsAvailable: Boolean = Runtime.version().feature() >= 21

  /** The execution context of a dispatcher pool. */
  def executionContext(system: ActorSystem[?], pool: PoolName): ExecutionContextExecutor =
    if pool == Default then system.executionContext
    else system.dispatchers.lookup(DispatcherSelector.fromConfig(pool.configPath))
