package bulkhead.service.metrics

import bulkhead.service.dispatch.PoolProbe
import io.micrometer.core.instrument.{FunctionCounter, Gauge, MeterRegistry, Tags}

/**
 * The gauges of one pool, tagged `name=<pool label>`, read through its [[PoolProbe]] at each scrape. A figure the
 * executor does not keep is NaN for a gauge and 0 for a counter, so that every pool has the same families.
 */
object PoolGauges:

  def bind(registry: MeterRegistry, probe: PoolProbe): Unit =
    val tags = Tags.of("name", probe.pool.label)
    // Strong: Micrometer holds a meter's object weakly by default, and nothing else holds a probe, so the first
    // garbage collection turned every pool's gauges to NaN and its counters to 0. These hold the probe for all.
    def gauge(name: String, unit: String, help: String, read: PoolProbe => Option[Double]): Unit =
      Gauge.builder(name, probe, p => read(p).getOrElse(Double.NaN)).baseUnit(unit).description(help).tags(tags)
        .strongReference(true).register(registry)
    def counter(name: String, unit: String, help: String, read: PoolProbe => Option[Double]): Unit =
      FunctionCounter.builder(name, probe, p => read(p).getOrElse(0.0)).baseUnit(unit).description(help).tags(tags)
        .register(registry)

    gauge("executor.active", "threads", "Threads of the pool running a task now (virtual: tasks in progress)",
      _.activeThreads)
    gauge("executor.pool.size", "threads", "Threads the pool holds now, busy or idle", _.poolThreads)
    gauge("executor.pool.max", "threads", "Threads the pool may hold (fork-join: its parallelism)", _.maxThreads)
    gauge("executor.queued", "tasks", "Tasks waiting for a thread of the pool", _.queuedTasks)
    gauge("executor.running", "threads", "Fork-join threads neither blocked nor waiting to join", _.runningThreads)
    gauge("executor.parallelism", "threads", "Fork-join target of running threads", _.parallelism)
    counter("executor.completed", "tasks", "Tasks the pool has finished", _.completedTasks)
    counter("executor.steals", "tasks", "Fork-join tasks taken from another worker's queue", _.steals)
