package bulkhead.service.metrics

import bulkhead.service.dispatch.{CountingExecutorService, ExecutorRegistry, PoolName}
import io.micrometer.core.instrument.{FunctionCounter, Gauge, MeterRegistry, Tags}

import java.util.concurrent.{ExecutorService, ForkJoinPool, ThreadPoolExecutor}

/**
 * Gauges of one pool, read from the executor registered now: Pekko may replace a dispatcher's executor (it rebuilds
 * one after `shutdown-timeout`), so the gauges look it up at each scrape instead of holding the first one.
 */
object PoolGauges:

  def bind(registry: MeterRegistry, systemName: String, pool: PoolName): Unit =
    val tags = Tags.of("name", pool.label)
    def current: Option[ExecutorService] = ExecutorRegistry.lookup(systemName, pool.configPath)
    def gauge(name: String, unit: String, read: PartialFunction[ExecutorService, Double]): Unit =
      Gauge.builder(name, () => current.collect(read).getOrElse(Double.NaN)).baseUnit(unit).tags(tags)
        .register(registry)
    def counter(name: String, unit: String, read: PartialFunction[ExecutorService, Double]): Unit =
      FunctionCounter.builder(name, pool, _ => current.collect(read).getOrElse(0.0)).baseUnit(unit).tags(tags)
        .register(registry)

    gauge("executor.active", "threads", {
      case e: ThreadPoolExecutor => e.getActiveCount.toDouble
      case e: ForkJoinPool => e.getActiveThreadCount.toDouble
      case e: CountingExecutorService => e.active.toDouble
    })
    gauge("executor.pool.size", "threads", {
      case e: ThreadPoolExecutor => e.getPoolSize.toDouble
      case e: ForkJoinPool => e.getPoolSize.toDouble
    })
    gauge("executor.pool.max", "threads", {
      case e: ThreadPoolExecutor => e.getMaximumPoolSize.toDouble
      case e: ForkJoinPool => e.getParallelism.toDouble
    })
    gauge("executor.queued", "tasks", {
      case e: ThreadPoolExecutor => e.getQueue.size.toDouble
      case e: ForkJoinPool => (e.getQueuedTaskCount + e.getQueuedSubmissionCount).toDouble
    })
    gauge("executor.running", "threads", { case e: ForkJoinPool => e.getRunningThreadCount.toDouble })
    gauge("executor.parallelism", "threads", { case e: ForkJoinPool => e.getParallelism.toDouble })
    counter("executor.completed", "tasks", {
      case e: ThreadPoolExecutor => e.getCompletedTaskCount.toDouble
      case e: CountingExecutorService => e.completed.toDouble
    })
    counter("executor.steals", "tasks", { case e: ForkJoinPool => e.getStealCount.toDouble })
