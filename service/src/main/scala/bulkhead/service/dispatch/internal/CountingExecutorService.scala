package bulkhead.service.dispatch.internal

import java.util
import java.util.concurrent.{AbstractExecutorService, ExecutorService, TimeUnit}
import java.util.concurrent.atomic.LongAdder

/**
 * Counts running and completed tasks of an executor that reports nothing itself (virtual threads: one thread per
 * task, so running tasks = threads in use). Only wraps the virtual-thread executor; fork-join and thread-pool
 * executors report their own figures.
 */
private[dispatch] final class CountingExecutorService(underlying: ExecutorService) extends AbstractExecutorService:
  private val started = LongAdder()
  private val finished = LongAdder()

  def active: Long = started.sum() - finished.sum()
  def completed: Long = finished.sum()

  def execute(task: Runnable): Unit =
    started.increment()
    try
      underlying.execute { () =>
        try task.run()
        finally finished.increment()
      }
    catch
      case e: Throwable =>
        finished.increment()
        throw e

  def shutdown(): Unit = underlying.shutdown()
  def shutdownNow(): util.List[Runnable] = underlying.shutdownNow()
  def isShutdown: Boolean = underlying.isShutdown
  def isTerminated: Boolean = underlying.isTerminated
  def awaitTermination(timeout: Long, unit: TimeUnit): Boolean = underlying.awaitTermination(timeout, unit)
