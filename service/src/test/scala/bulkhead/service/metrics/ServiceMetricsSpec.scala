package bulkhead.service.metrics

import bulkhead.service.enrichment.{BreakerState, CircuitState}
import bulkhead.service.testkit.HttpProbe.metric
import bulkhead.service.testkit.{Promtool, ServedTraffic}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.util.concurrent.TimeUnit

/** The service's meters as Prometheus text. */
@Slow
class ServiceMetricsSpec extends AnyFlatSpec with Matchers:

  private def bucket(text: String, route: String, status: Int, le: String) =
    metric(text, s"""http_server_requests_seconds_bucket{route="$route",status="$status",le="$le"}""")

  "ServiceMetrics" should "publish request latency as a histogram whose buckets span sub-millisecond to a minute" in {
    val m = ServiceMetrics()
    m.recordRequest("work", 200, TimeUnit.MICROSECONDS.toNanos(300))
    m.recordRequest("work", 200, TimeUnit.MILLISECONDS.toNanos(3))
    m.recordRequest("work", 200, TimeUnit.SECONDS.toNanos(20))
    val text = m.scrape()
    text should include("# TYPE http_server_requests_seconds histogram")
    val bounds = """http_server_requests_seconds_bucket\{route="work",status="200",le="([^"]+)"}""".r
      .findAllMatchIn(text).map(_.group(1)).filter(_ != "+Inf").map(_.toDouble).toSeq.sorted
    bounds.head should be < 0.001
    bounds.last should be >= 30.0
    // Cumulative counts: 0.3 ms falls in the lowest bucket, 3 ms below 5 ms but not below 2.5 ms, 20 s below 30 s.
    bucket(text, "work", 200, "5.0E-4") shouldBe Some(1.0)
    bucket(text, "work", 200, "0.0025") shouldBe Some(1.0)
    bucket(text, "work", 200, "0.005") shouldBe Some(2.0)
    bucket(text, "work", 200, "10.0") shouldBe Some(2.0)
    bucket(text, "work", 200, "30.0") shouldBe Some(3.0)
    metric(text, """http_server_requests_seconds_count{route="work",status="200"}""") shouldBe Some(3.0)
  }

  it should "resolve one timer per route and status, so a hot path can hold it" in {
    val m = ServiceMetrics()
    m.requestTimer("hello", 200) shouldBe theSameInstanceAs(m.requestTimer("hello", 200))
    m.requestTimer("hello", 200) should not be theSameInstanceAs(m.requestTimer("hello", 404))
  }

  it should "publish the circuit breaker's state as it changes, and how many times it opened" in {
    val m = ServiceMetrics()
    var current = CircuitState.Closed
    var opened = 0L
    m.bindBreaker(new BreakerState { def state: CircuitState = current; def openings: Long = opened })
    val seen = CircuitState.values.toSeq.map { s =>
      current = s
      metric(m.scrape(), "soap_circuit_state").get
    }
    seen shouldBe Seq(0.0, 1.0, 2.0)
    opened = 3
    metric(m.scrape(), "soap_circuit_opened_total") shouldBe Some(3.0)
  }

  it should "give every family HELP text" in {
    val m = ServiceMetrics()
    m.recordRequest("hello", 200, 1000)
    m.bindMaxConnections(10)
    m.bindEnrichment(() => 0, 1)
    m.bindHeadBytes(() => 0L, 1024)
    val help = """(?m)^# HELP (\S+) ?(.*)$""".r.findAllMatchIn(m.scrape()).map(h => h.group(1) -> h.group(2).trim).toSeq
    help.size should be > 10
    help.filter(_._2.isEmpty).map(_._1) shouldBe Nil
  }

  "The service's /metrics" should "pass promtool check metrics without a single warning, after every route" in {
    // Each configuration adds its own families: the work queue's pool, the host pool's cap, the cluster's gauges.
    val configurations = Seq(
      ("blocking SOAP client", "bulkhead.enrichment.soap.mode" -> "blocking",
        Seq("executor_active_threads{name=\"work-queue\"}", "\nsoap_client_exchanges_seconds_count ")),
      // The lab reads these names: a unit Prometheus appends would hide them.
      ("non-blocking SOAP client", "bulkhead.enrichment.soap.mode" -> "non-blocking",
        Seq("\nsoap_client_connections_max ", "\nsoap_client_connections_open ",
          "\nsoap_client_calls_seconds_count{outcome=\"answered\"",
          "\nselector_thread_alive{name=\"bulkhead.soap.io-1\"} 1.0")),
      ("a one-node cluster", "bulkhead.cluster.port" -> 0, Seq("cluster_members_up")))
    for (what, setting, own) <- configurations do
      val text = ServedTraffic.scrape(setting)
      withClue(s"$what: ") {
        (own ++ Seq("executor_active_threads", "http_server_requests_seconds_bucket", "soap_circuit_state",
          "redis_connections_open", "process_cpu_seconds_total", "\nhttp_server_head_bytes_in_progress 0",
          "\nhttp_server_head_bytes_in_progress_max ",
          // The server's selector thread: alive, how busy, what it watches, what waits for it.
          "\nselector_thread_alive{name=\"bulkhead.service.server.io-1\"} 1.0",
          "\nselector_thread_busy_ratio{name=\"bulkhead.service.server.io-1\"} ",
          "\nselector_thread_busy_seconds_total{name=\"bulkhead.service.server.io-1\"} ",
          "\nselector_thread_channels{name=\"bulkhead.service.server.io-1\"} ",
          "\nselector_thread_tasks_queued{name=\"bulkhead.service.server.io-1\"} ")).foreach(family =>
          text should include(family))
        val checked = Promtool.run(Seq("check", "metrics"), text)
        withClue(checked.output.mkString("promtool says:\n", "\n", "\n")) {
          checked.output shouldBe Nil
          checked.exitCode shouldBe 0
        }
      }
  }

  "promtool check metrics" should "warn on what the service avoids, so that its silence means something" in {
    val bad = """# HELP process_cpu_time_ns_total CPU time
                |# TYPE process_cpu_time_ns_total counter
                |process_cpu_time_ns_total 1
                |# TYPE system_cpu_count gauge
                |system_cpu_count 2
                |""".stripMargin
    val checked = Promtool.run(Seq("check", "metrics"), bad)
    checked.output.mkString("\n") should (include("process_cpu_time_ns_total") and include("system_cpu_count"))
    checked.exitCode should not be 0
  }
