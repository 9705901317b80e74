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

  def after[A](delay: FiniteDuration)(value: => A): Future[A] = cancellableAfter(delay)(value)._1

  /** As [[after]], with a way to give the wait up: the timer entry is removed and `onCancel`'s failure completes it. */
  def cancellableAfter[A](delay: FiniteDuration)(value: => A): (Future[A], Throwable => Unit) =
    val promise = Promise[A]()
    val scheduled = executor.schedule((() => promise.trySuccess(value)): Runnable, delay.toNanos, TimeUnit.NANOSECONDS)
    val cancel: Throwable => Unit = reason => if scheduled.cancel(false) then promise.tryFailure(reason)
    (promise.future, cancel)

  def shutdown(): Unit = executor.shutdownNow()
