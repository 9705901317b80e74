package bulkhead.stub

import io.micrometer.core.instrument.Gauge
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics
import io.micrometer.prometheusmetrics.{PrometheusConfig, PrometheusMeterRegistry}

import java.util.concurrent.atomic.AtomicLong

/**
 * The stub's own figures: requests in flight, answered, faults injected by kind, and the calls that came with a
 * deadline ([[SoapMessages.DeadlineHeader]]) and those that came past it (stale: their caller had already given up,
 * so any work on them is wasted).
 */
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
  private val withDeadline = registry.counter("stub.calls.with.deadline")
  private val staleCalls = registry.counter("stub.calls.stale")

  /** A call read whole, with the deadline its caller sent (epoch milliseconds), if any. */
  def arrived(deadlineMillis: Option[Long]): Unit = deadlineMillis.foreach { d =>
    withDeadline.increment()
    if System.currentTimeMillis() > d then staleCalls.increment()
  }
  def stale: Long = staleCalls.count().toLong
  def deadlined: Long = withDeadline.count().toLong
  def inFlight: Long = inFlightCount.get
  def answered: Long = answeredCount.count().toLong
  /**
   * `stub_calls_hung`: the calls in flight that the hang fault holds for callers that have long given up (it answers
   * none of them, also once cleared); in flight less these is what the third party is working on.
   */
  def countHung(hung: () => Int): Unit = Gauge.builder("stub.calls.hung", () => hung().toDouble).register(registry)
  def fault(f: Fault): Unit = registry.counter("stub.faults", "kind", f.key).increment()
