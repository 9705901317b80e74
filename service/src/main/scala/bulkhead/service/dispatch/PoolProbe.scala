package bulkhead.service.dispatch

import bulkhead.service.dispatch.internal.{CountingExecutorService, ExecutorRegistry}

import java.util.concurrent.{ExecutorService, ForkJoinPool, ThreadPoolExecutor}

/**
 * What one pool's executor says about itself, read at each call: Pekko may replace a dispatcher's executor (it builds
 * a new one after `shutdown-timeout`), so a probe looks the executor up every time instead of holding the first one.
 * A figure the executor does not keep (steals of a thread pool, size of virtual threads) is `None`, as is every
 * figure while the pool has no executor.
 */
final class PoolProbe private (systemName: String, val pool: PoolName):
  private def read(figure: PartialFunction[ExecutorService, Double]): Option[Double] =
    ExecutorRegistry.lookup(systemName, pool.configPath).collect(figure)

  /** Threads running a task now (virtual threads: tasks started and not finished). */
  def activeThreads: Option[Double] = read {
    case e: ThreadPoolExecutor => e.getActiveCount.toDouble
    case e: ForkJoinPool => e.getActiveThreadCount.toDouble
    case e: CountingExecutorService => e.active.toDouble
  }

  /** Threads the pool holds now, busy or idle. */
  def poolThreads: Option[Double] = read {
    case e: ThreadPoolExecutor => e.getPoolSize.toDouble
    case e: ForkJoinPool => e.getPoolSize.toDouble
  }

  /** Threads the pool may hold: its size for Little's law (fork-join: its parallelism). */
  def maxThreads: Option[Double] = read {
    case e: ThreadPoolExecutor => e.getMaximumPoolSize.toDouble
    case e: ForkJoinPool => e.getParallelism.toDouble
  }

  /** Tasks waiting for a thread. */
  def queuedTasks: Option[Double] = read {
    case e: ThreadPoolExecutor => e.getQueue.size.toDouble
    case e: ForkJoinPool => (e.getQueuedTaskCount + e.getQueuedSubmissionCount).toDouble
  }

  /** Fork-join only: threads neither blocked nor waiting to join. */
  def runningThreads: Option[Double] = read { case e: ForkJoinPool => e.getRunningThreadCount.toDouble }

  /** Fork-join only: its target number of running threads. */
  def parallelism: Option[Double] = read { case e: ForkJoinPool => e.getParallelism.toDouble }

  /** Tasks finished since the pool started. */
  def completedTasks: Option[Double] = read {
    case e: ThreadPoolExecutor => e.getCompletedTaskCount.toDouble
    case e: CountingExecutorService => e.completed.toDouble
  }

  /** Fork-join only: tasks one worker took from another's queue. */
  def steals: Option[Double] = read { case e: ForkJoinPool => e.getStealCount.toDouble }

object PoolProbe:
  /** The probe of a dispatcher Pekko builds through the metered configurator (see reference.conf). */
  def apply(systemName: String, pool: PoolName): PoolProbe = new PoolProbe(systemName, pool)

  /** Makes a pool the service built itself (not through Pekko) readable, and returns its probe. */
  def adopt(systemName: String, pool: PoolName, executor: ExecutorService): PoolProbe =
    ExecutorRegistry.register(systemName, pool.configPath, executor)
    new PoolProbe(systemName, pool)

  /** Forgets the pools of an actor system that has terminated. */
  def forget(systemName: String): Unit = ExecutorRegistry.forget(systemName)
