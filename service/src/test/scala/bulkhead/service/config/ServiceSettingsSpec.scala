package bulkhead.service.config

import bulkhead.service.testkit.TestService
import com.typesafe.config.ConfigException
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import scala.concurrent.duration.*

class ServiceSettingsSpec extends AnyFlatSpec with Matchers:
  private val reference = TestService.config(Map.empty)

  "ServiceSettings" should "accept reference.conf's defaults, which lift Pekko's silent connection cap" in {
    val s = ServiceSettings(reference)
    s.server.maxConnections should be > reference.getInt("pekko.http.server.max-connections")
    s.work.defaultMs should be <= s.work.maxMs
    s.metrics shouldBe MetricsListener.OnServiceListener
    s.server.refuseSmallHeap shouldBe true
  }

  it should "read each key into its field" in {
    val s = ServiceSettings(TestService.config(Map(
      "bulkhead.service.host" -> "127.0.0.2",
      "bulkhead.service.port-file" -> "/tmp/port",
      "bulkhead.service.server.max-connections" -> 777,
      "bulkhead.service.server.backlog" -> 99,
      "bulkhead.service.server.listeners" -> 3,
      "bulkhead.service.server.request-timeout" -> "7s",
      "bulkhead.service.work.max-ms" -> 1234,
      "bulkhead.dispatch.blocking-pool.thread-pool-executor.fixed-pool-size" -> 17,
      "pekko.actor.default-dispatcher.fork-join-executor.parallelism-max" -> 33,
      "bulkhead.service.metrics.port" -> 9999,
      "bulkhead.service.server.refuse-small-heap" -> false)))
    (s.host, s.portFile, s.server.maxConnections, s.server.backlog, s.server.listeners) shouldBe
      ("127.0.0.2", Some("/tmp/port"), 777, 99, 3)
    (s.server.requestTimeout, s.work.maxMs, s.pools.blockingPoolSize, s.pools.defaultParallelismMax) shouldBe
      (7.seconds, 1234, 17, 33)
    s.metrics shouldBe MetricsListener.Separate("127.0.0.1", 9999)
    s.server.refuseSmallHeap shouldBe false
  }

  it should "refuse a bad value with its key named" in {
    val cases = Seq(
      "bulkhead.dispatch.blocking-pool.thread-pool-executor.fixed-pool-size" -> 0,
      "bulkhead.service.server.max-connections" -> -5,
      "bulkhead.service.port" -> 70000,
      "bulkhead.service.work.default-ms" -> 70000,
      "pekko.actor.default-dispatcher.fork-join-executor.parallelism-min" -> 100,
      "pekko.actor.default-dispatcher.fork-join-executor.parallelism-factor" -> "lots",
      "bulkhead.service.server.refuse-small-heap" -> "maybe")
    for (key, value) <- cases do
      val e = the[ConfigException] thrownBy ServiceSettings(TestService.config(Map(key -> value)))
      withClue(s"$key = $value: ")(e.getMessage should include(key.split('.').last))
  }

  "A host other than loopback" should "need /metrics on its own listener, or --expose-metrics, and say so" in {
    val e = the[ConfigException] thrownBy ServiceSettings(
      ServiceCommandLine.parse(Seq("--host", "0.0.0.0")).toOption.get)
    e.getMessage should include("--metrics-port")
    e.getMessage should include("--expose-metrics")
    ServiceSettings(ServiceCommandLine.parse(Seq("--host", "0.0.0.0", "--metrics-port", "0")).toOption.get)
      .metrics shouldBe MetricsListener.Separate("127.0.0.1", 0)
    ServiceSettings(ServiceCommandLine.parse(Seq("--host", "0.0.0.0", "--expose-metrics")).toOption.get)
      .metrics shouldBe MetricsListener.OnServiceListener
    ServiceSettings(ServiceCommandLine.parse(Seq("--host", "localhost")).toOption.get).host shouldBe "localhost"
  }

  "The work routes' limits" should "fit the blocking pool's queue, or the start is refused with the key named" in {
    val e = the[ConfigException] thrownBy ServiceSettings(TestService.config(Map(
      "bulkhead.dispatch.blocking-pool.thread-pool-executor.task-queue-size" -> 100,
      "bulkhead.service.work.max-in-flight.pool" -> 1000)))
    e.getMessage should include("bulkhead.service.work.max-in-flight.pool")
    // The threads add no room (a thread releases its request before it takes the next task): the queue alone counts.
    val f = the[ConfigException] thrownBy ServiceSettings(TestService.config(Map(
      "bulkhead.dispatch.blocking-pool.thread-pool-executor.fixed-pool-size" -> 200,
      "bulkhead.dispatch.blocking-pool.thread-pool-executor.task-queue-size" -> 100,
      "bulkhead.service.work.max-in-flight.pool" -> 250)))
    f.getMessage should include("task-queue-size (100)")
    ServiceSettings(TestService.config(Map(
      "bulkhead.dispatch.blocking-pool.thread-pool-executor.task-queue-size" -> 100,
      "bulkhead.service.work.max-in-flight.pool" -> 100))).work.limits.pool shouldBe 100
  }
