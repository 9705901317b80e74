package bulkhead.service.dispatch

import java.util.concurrent.{ScheduledThreadPoolExecutor, TimeUnit}
import scala.concurrent.{Future, Promise}
import scala.concurrent.duration.FiniteDuration

/**
 * One timer thread for `/work/async`: completes a promise after a delay and blocks nothing. Pekko's scheduler ticks
 * every 10 ms and rounds delays up to its ticks (100 ms work measured at p50 ~120 ms); a JDK scheduled executor fires
 * within a fraction of a millisecond, so latency, and with it Little's-law throughput, stays at the work's own.
 */
final class TimerPool(pool: PoolName):
  private val executor = ScheduledThreadPoolExecutor(1, NamedThreads(pool.configPath))
  executor.setRemoveOnCancelPolicy(true)

  def after[A](delay: FiniteDuration)(value: => A): Future[A] =
    val promise = Promise[A]()
    executor.schedule((() => promise.trySuccess(value)): Runnable, delay.toNanos, TimeUnit.NANOSECONDS)
    promise.future

  def shutdown(): Unit = executor.shutdownNow()
