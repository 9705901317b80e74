package bulkhead.service.metrics

import bulkhead.service.dispatch.{ExecutorRegistry, PoolName}
import io.micrometer.core.instrument.binder.jvm.{JvmMemoryMetrics, JvmThreadMetrics}
import io.micrometer.core.instrument.binder.system.ProcessorMetrics
import io.micrometer.core.instrument.{Gauge, Timer}
import io.micrometer.prometheusmetrics.{PrometheusConfig, PrometheusMeterRegistry}

import java.util.concurrent.TimeUnit

/** The service's meters, rendered at /metrics in Prometheus text. */
final class ServiceMetrics:
  val registry: PrometheusMeterRegistry = PrometheusMeterRegistry(PrometheusConfig.DEFAULT)
  JvmThreadMetrics().bindTo(registry)
  JvmMemoryMetrics().bindTo(registry)
  ProcessorMetrics().bindTo(registry)

  /** Connections the server serves now (see [[OpenConnections]]). */
  val connections: OpenConnections = OpenConnections()
  Gauge.builder("http.server.connections.open", connections, _.count.toDouble)
    .description("connections the HTTP server serves now (accepted, not yet closed)").register(registry)

  // optimization: one timer per (route, status), built once; a builder per request was visible in profiles.
  private val timers = java.util.concurrent.ConcurrentHashMap[(String, Int), Timer]()

  /** Records one answered request of a route (a fixed, small set of names) with its status. */
  def recordRequest(route: String, status: Int, nanos: Long): Unit =
    timers.computeIfAbsent((route, status), _ =>
      Timer.builder("http.server.requests").tags("route", route, "status", status.toString).register(registry)
    ).record(nanos, TimeUnit.NANOSECONDS)

  /** Publishes a pool's gauges (size, active, queued, completed; parallelism, running, steals for fork-join). */
  def bindPool(systemName: String, pool: PoolName): Unit = PoolGauges.bind(registry, systemName, pool)

  /** Publishes a pool the service built itself (the SOAP work queue). */
  def bindWorkQueue(systemName: String, pool: PoolName, executor: java.util.concurrent.ThreadPoolExecutor): Unit =
    ExecutorRegistry.register(systemName, pool.configPath, executor)
    PoolGauges.bind(registry, systemName, pool)

  def scrape(): String = registry.scrape()
