package bulkhead.service.metrics

import io.micrometer.core.instrument.binder.jvm.{JvmMemoryMetrics, JvmThreadMetrics}
import io.micrometer.core.instrument.binder.system.ProcessorMetrics
import io.micrometer.core.instrument.config.MeterFilter
import io.micrometer.core.instrument.{FunctionCounter, Meter, MeterRegistry}

import java.lang.management.ManagementFactory

/**
 * The JVM's threads, memory and CPU, named as Prometheus expects. Micrometer's processor binder publishes CPU time in
 * nanoseconds (`process_cpu_time_ns_total`: promtool refuses the abbreviated unit) and the processor count as
 * `system_cpu_count` (a `_count` suffix belongs to histograms and summaries), so the first is replaced by
 * `process_cpu_seconds_total` (the name Prometheus' own client libraries use) and the second is renamed.
 *
 * `jvm.threads.states` is left out: each of its six gauges asks the JVM for every thread's info on every scrape (a
 * handshake with each thread, six times), which made a scrape cost the service ~7 ms of CPU with 40 threads and grows
 * with the threads. Thread states are what a thread dump gives the lab; the live, daemon and peak counts stay.
 */
object JvmMeters:
  private val CpuTimeInNanos = "process.cpu.time"
  private val ProcessorCount = "system.cpu.count"
  private val ThreadStates = "jvm.threads.states"
  /** Processors available to the JVM: what process CPU seconds per second are compared with. */
  val AvailableProcessors = "system.available.processors"

  private val renameProcessorCount: MeterFilter = new MeterFilter:
    override def map(id: Meter.Id): Meter.Id =
      if id.getName == ProcessorCount then id.withName(AvailableProcessors) else id

  /** Binds the meters; the filters go first because Micrometer applies them when a meter registers. */
  def bind(registry: MeterRegistry): Unit =
    registry.config()
      .meterFilter(MeterFilter.deny(id => id.getName == CpuTimeInNanos || id.getName == ThreadStates))
      .meterFilter(renameProcessorCount)
    JvmThreadMetrics().bindTo(registry)
    JvmMemoryMetrics().bindTo(registry)
    ProcessorMetrics().bindTo(registry)
    ManagementFactory.getOperatingSystemMXBean match
      case os: com.sun.management.OperatingSystemMXBean if os.getProcessCpuTime >= 0 =>
        FunctionCounter.builder("process.cpu", os, _.getProcessCpuTime / 1e9).baseUnit("seconds")
          .description("CPU time used by the JVM process, all threads, in seconds").register(registry)
      case _ => ()
