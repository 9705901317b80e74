package bulkhead.service.metrics

import bulkhead.service.dispatch.{CountingExecutorService, ExecutorRegistry, PoolName}
import io.micrometer.core.instrument.binder.jvm.{ExecutorServiceMetrics, JvmMemoryMetrics, JvmThreadMetrics}
import io.micrometer.core.instrument.binder.system.ProcessorMetrics
import io.micrometer.core.instrument.{Gauge, Tags, Timer}
import io.micrometer.prometheusmetrics.{PrometheusConfig, PrometheusMeterRegistry}

import java.util.concurrent.TimeUnit

/** The service's meters, rendered at /metrics in Prometheus text. */
final class ServiceMetrics:
  val registry: PrometheusMeterRegistry = PrometheusMeterRegistry(PrometheusConfig.DEFAULT)
  JvmThreadMetrics().bindTo(registry)
  JvmMemoryMetrics().bindTo(registry)
  ProcessorMetrics().bindTo(registry)

  /** Publishes the count of established connections to the service's port, once it is bound. */
  def bindConnections(port: Int): Unit =
    Gauge.builder("http.server.connections.open", () => OpenConnections.count(port).toDouble)
      .description("established TCP connections to the service's port (from /proc/net/tcp)").register(registry)

  /** Records one answered request of a route (a fixed, small set of names) with its status. */
  def recordRequest(route: String, status: Int, nanos: Long): Unit =
    Timer.builder("http.server.requests").tags("route", route, "status", status.toString)
      .register(registry).record(nanos, TimeUnit.NANOSECONDS)

  /** Publishes a pool's gauges, once Pekko has created its executor. */
  def bindPool(systemName: String, pool: PoolName): Boolean =
    ExecutorRegistry.lookup(systemName, pool.configPath) match
      case Some(counting: CountingExecutorService) =>
        val tags = Tags.of("name", pool.label)
        Gauge.builder("executor.active", counting, _.active.toDouble).tags(tags).register(registry)
        Gauge.builder("executor.completed", counting, _.completed.toDouble).tags(tags).register(registry)
        true
      case Some(executor) =>
        ExecutorServiceMetrics(executor, pool.label, Tags.empty).bindTo(registry)
        true
      case None => false

  def scrape(): String = registry.scrape()
