package bulkhead.service.config

import com.typesafe.config.ConfigException
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

class ServiceCommandLineSpec extends AnyFlatSpec with Matchers:

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
    ServiceCommandLine.parse(Seq("--set", "bulkhead.service.typo=1")).left.toOption.get should
      include("'bulkhead.service.typo'")
    val bad = ServiceCommandLine.parse(Seq("--blocking-pool-size", "many")).toOption.get
    (the[ConfigException] thrownBy ServiceSettings(bad)).getMessage should include("fixed-pool-size")
  }

  it should "refuse a Redis password on the command line, saying where to put it instead" in {
    for args <- Seq(Seq("--redis-uri", "redis://:s3cret-pw@127.0.0.1:6379"),
        Seq("--set", "bulkhead.enrichment.redis.uri=redis://s3cret-pw@127.0.0.1:6379")) do
      val refused = ServiceCommandLine.parse(args).left.getOrElse(fail(s"accepted $args"))
      refused should include("--redis-password-file")
      refused should include(EnrichmentSettings.RedisPasswordVariable)
      refused should not include "s3cret-pw"
    ServiceCommandLine.parse(Seq("--redis-uri", "redis://127.0.0.1:6379/2")).isRight shouldBe true
  }
