package bulkhead.stub

import io.micrometer.core.instrument.Gauge
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics
import io.micrometer.prometheusmetrics.{PrometheusConfig, PrometheusMeterRegistry}

import java.util.concurrent.atomic.AtomicLong

/** The stub's own figures: requests in flight, answered, and faults injected by kind. */
final class StubMetrics:
  val registry: PrometheusMeterRegistry = PrometheusMeterRegistry(PrometheusConfig.DEFAULT)
  JvmThreadMetrics().bindTo(registry)
  private val inFlightCount = AtomicLong()
  Gauge.builder("stub.in.flight", inFlightCount, _.get.toDouble).register(registry)
  private val answeredCount = registry.counter("stub.answered")

  def started(): Unit = inFlightCount.incrementAndGet()
  def finished(): Unit =
    inFlightCount.decrementAndGet()
    answeredCount.increment()
  def inFlight: Long = inFlightCount.get
  def answered: Long = answeredCount.count().toLong
  def fault(f: Fault): Unit = registry.counter("stub.faults", "kind", f.key).increment()
