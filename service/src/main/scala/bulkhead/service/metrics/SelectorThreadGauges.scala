package bulkhead.service.metrics

import bulkhead.transport.IoLoop
import io.micrometer.core.instrument.{FunctionCounter, Gauge, MeterRegistry, Tags}

/**
 * The gauges of one selector thread (a loop of the selector transport), tagged `name=<its thread's name>`: whether
 * it runs, the share of the last second it was busy (handling sockets and tasks, not waiting in `select`), the
 * channels it watches and the tasks handed to it not yet run. A loop busy near 1.0 is the transport's cap (add
 * io-threads); tasks that pile up are a loop that does not keep up; alive at 0 is a dead loop (the service stops).
 */
object SelectorThreadGauges:

  def bind(registry: MeterRegistry, loop: IoLoop): Unit =
    val tags = Tags.of("name", loop.threadName)
    // Strong: Micrometer holds a meter's object weakly by default (see PoolGauges).
    def gauge(name: String, unit: String, help: String, read: IoLoop => Double): Unit =
      val builder = Gauge.builder(name, loop, l => read(l)).description(help).tags(tags).strongReference(true)
      (if unit.isEmpty then builder else builder.baseUnit(unit)).register(registry)
    gauge("selector.thread.alive", "", "1 while the selector thread runs, 0 once it stopped or died",
      l => if l.alive then 1.0 else 0.0)
    gauge("selector.thread.busy.ratio", "", "Share of the last second the selector thread spent handling sockets " +
      "and tasks rather than waiting for readiness", _.busyRatio)
    gauge("selector.thread.channels", "", "Channels registered with the selector thread (listeners included)",
      _.registeredChannels.toDouble)
    gauge("selector.thread.tasks.queued", "", "Tasks handed to the selector thread and not yet run",
      _.tasksQueued.toDouble)
    FunctionCounter.builder("selector.thread.busy", loop, _.busySeconds).baseUnit("seconds")
      .description("Time the selector thread spent handling sockets and tasks").tags(tags).register(registry)
