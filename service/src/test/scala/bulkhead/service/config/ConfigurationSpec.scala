package bulkhead.service.config

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

  "The Redis password" should "be refused on the command line, with where to put it instead" in {
    for args <- Seq(Seq("--redis-uri", "redis://:s3cret-pw@127.0.0.1:6379"),
        Seq("--set", "bulkhead.enrichment.redis.uri=redis://s3cret-pw@127.0.0.1:6379")) do
      val refused = ServiceCommandLine.parse(args).left.getOrElse(fail(s"accepted $args"))
      refused should include("--redis-password-file")
      refused should include(EnrichmentSettings.RedisPasswordVariable)
      refused should not include "s3cret-pw"
    ServiceCommandLine.parse(Seq("--redis-uri", "redis://127.0.0.1:6379/2")).isRight shouldBe true
  }

  it should "come from --redis-password-file or the environment, and never show in the settings" in {
    val file = java.nio.file.Files.createTempFile("redis-password", "")
    try
      java.nio.file.Files.writeString(file, "from-file-pw\n")
      val fromFile = ServiceSettings.read(
        ServiceCommandLine.parse(Seq("--redis-password-file", file.toString)).toOption.get, env = Map(EnrichmentSettings.RedisPasswordVariable -> "from-env-pw"))
      fromFile.enrichment.redis.password.map(_.reveal) shouldBe Some("from-file-pw")
      fromFile.toString should not include "from-file-pw"
      val fromEnv = ServiceSettings.read(TestService.config(Map.empty),
        env = Map(EnrichmentSettings.RedisPasswordVariable -> "from-env-pw"))
      fromEnv.enrichment.redis.password.map(_.reveal) shouldBe Some("from-env-pw")
      ServiceSettings.read(TestService.config(Map.empty), env = Map.empty).enrichment.redis.password shouldBe None
      val missing = the[ConfigException] thrownBy ServiceSettings(
        TestService.config(Map("bulkhead.enrichment.redis.password-file" -> "/nonexistent/pw")))
      missing.getMessage should include("password-file")
    finally java.nio.file.Files.delete(file)
  }

  it should "not be quoted when the Redis URI is malformed" in {
    val e = the[ConfigException] thrownBy ServiceSettings(
      TestService.config(Map("bulkhead.enrichment.redis.uri" -> "redis://:s3cret-pw@127.0.0 .1:6379")))
    e.getMessage should include("bulkhead.enrichment.redis.uri")
    e.getMessage should not include "s3cret-pw"
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
  }

