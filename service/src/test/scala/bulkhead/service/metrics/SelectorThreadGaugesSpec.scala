package bulkhead.service.metrics

import bulkhead.transport.IoLoops
import io.micrometer.prometheusmetrics.{PrometheusConfig, PrometheusMeterRegistry}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import scala.concurrent.Await
import scala.concurrent.duration.*

/** A selector thread's gauges read the loop itself: alive while it runs, 0 once it died. */
class SelectorThreadGaugesSpec extends AnyFlatSpec with Matchers:
  private def value(text: String, family: String, thread: String): Double =
    s"""(?m)^$family\\{name="$thread"\\} (\\S+)$$""".r.findFirstMatchIn(text).map(_.group(1).toDouble)
      .getOrElse(fail(s"no $family for $thread in\n$text"))

  "The selector thread gauges" should "show a running loop alive and idle, and a dead one not alive" in {
    val registry = PrometheusMeterRegistry(PrometheusConfig.DEFAULT)
    val loops = IoLoops("gauges-spec-io", 1, 1024, (_, _) => (), (_, _) => ())
    try
      loops.loops.foreach(SelectorThreadGauges.bind(registry, _))
      val running = registry.scrape()
      value(running, "selector_thread_alive", "gauges-spec-io-1") shouldBe 1.0
      value(running, "selector_thread_channels", "gauges-spec-io-1") shouldBe 0.0
      value(running, "selector_thread_tasks_queued", "gauges-spec-io-1") shouldBe 0.0
      value(running, "selector_thread_busy_ratio", "gauges-spec-io-1") should (be >= 0.0 and be <= 1.0)
      loops.loops.head.execute(() => throw StackOverflowError("injected"))
      Await.ready(loops.loops.head.whenDead, 5.seconds)
      value(registry.scrape(), "selector_thread_alive", "gauges-spec-io-1") shouldBe 0.0
    finally loops.shutdown()
  }
