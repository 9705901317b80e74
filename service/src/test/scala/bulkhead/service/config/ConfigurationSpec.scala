package bulkhead.service.config

import bulkhead.service.dispatch.WorkQueueSettings
import bulkhead.service.testkit.TestService
import com.typesafe.config.ConfigException
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

class ConfigurationSpec extends AnyFlatSpec with Matchers:

  "ServiceSettings" should "read the defaults of reference.conf" in {
    val s = ServiceSettings(TestService.config(Map.empty))
    s.pools.blockingPoolSize shouldBe 200
    s.server.maxConnections shouldBe 16384
    s.enrichment.routees shouldBe 20
    s.enrichment.soap.mode shouldBe SoapMode.NonBlocking
    s.enrichment.soap.workQueue shouldBe WorkQueueSettings(5, 25, 256, s.enrichment.soap.workQueue.keepAlive)
  }

  it should "refuse a bad value with its key named" in {
    val cases = Seq(
      "bulkhead.dispatch.blocking-pool.thread-pool-executor.fixed-pool-size" -> 0,
      "bulkhead.service.server.max-connections" -> -5,
      "bulkhead.service.port" -> 70000,
      "bulkhead.enrichment.soap.mode" -> "turbo",
      "bulkhead.enrichment.redis.uri" -> "http://nope",
      "bulkhead.enrichment.soap.work-queue.max" -> 2,
      "pekko.actor.default-dispatcher.fork-join-executor.parallelism-factor" -> "lots")
    for (key, value) <- cases do
      val e = the[ConfigException] thrownBy ServiceSettings(TestService.config(Map(key -> value)))
      withClue(s"$key = $value: ")(e.getMessage should include(key))
  }

  "The command line" should "turn flags into configuration keys" in {
    val config = ServiceCommandLine.parse(Seq("--port", "9000", "--blocking-pool-size", "1000", "--routees", "1",
      "--set", "bulkhead.enrichment.soap.mode=blocking")).toOption.get
    val s = ServiceSettings(config)
    (s.port, s.pools.blockingPoolSize, s.enrichment.routees, s.enrichment.soap.mode) shouldBe
      (9000, 1000, 1, SoapMode.Blocking)
  }

  it should "refuse a bad flag, a bad --set and an unknown key, naming them" in {
    ServiceCommandLine.parse(Seq("--port", "abc")).isLeft shouldBe true
    ServiceCommandLine.parse(Seq("--no-such-flag")).isLeft shouldBe true
    ServiceCommandLine.parse(Seq("--set", "novalue")).isLeft shouldBe true
    ServiceCommandLine.parse(Seq("--set", "bulkhead.service.typo=1")) shouldBe
      Left("unknown configuration key 'bulkhead.service.typo' (see the reference.conf files)")
    val bad = ServiceCommandLine.parse(Seq("--blocking-pool-size", "many")).toOption.get
    (the[ConfigException] thrownBy ServiceSettings(bad)).getMessage should include("fixed-pool-size")
  }
