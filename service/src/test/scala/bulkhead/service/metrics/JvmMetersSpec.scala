package bulkhead.service.metrics

import bulkhead.service.testkit.HttpProbe.metric
import io.micrometer.prometheusmetrics.{PrometheusConfig, PrometheusMeterRegistry}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

class JvmMetersSpec extends AnyFlatSpec with Matchers:
  private val registry = PrometheusMeterRegistry(PrometheusConfig.DEFAULT)
  JvmMeters.bind(registry)

  "JvmMeters" should "publish the process's CPU time in seconds, growing as the JVM works" in {
    val before = metric(registry.scrape(), "process_cpu_seconds_total").get
    // Spin until this thread alone has used 0.25 s of CPU (its own clock, so a busy machine only makes it slower).
    val threads = java.lang.management.ManagementFactory.getThreadMXBean
    val start = threads.getCurrentThreadCpuTime
    var spin = 0L
    while threads.getCurrentThreadCpuTime - start < 250_000_000L do spin += 1
    val after = metric(registry.scrape(), "process_cpu_seconds_total").get
    (after - before) should be >= 0.2
    after should be < 1e6 // seconds, not nanoseconds
  }

  it should "leave out the nanosecond CPU time and name the processor count without a _count suffix" in {
    val text = registry.scrape()
    text should not include "process_cpu_time_ns"
    text should not include "system_cpu_count"
    metric(text, "system_available_processors") shouldBe Some(Runtime.getRuntime.availableProcessors().toDouble)
  }

  it should "leave out the thread counts by state, which ask for every thread's info six times a scrape" in {
    val text = registry.scrape()
    text should not include "jvm_threads_states"
    metric(text, "jvm_threads_daemon_threads").get should be >= 1.0
  }

  it should "keep the JVM's threads and memory families" in {
    val text = registry.scrape()
    metric(text, "jvm_threads_live_threads").get should be >= 1.0
    text should include("jvm_memory_used_bytes{")
  }
