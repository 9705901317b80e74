package bulkhead.service.config

import bulkhead.service.dispatch.WorkQueueSettings
import bulkhead.service.testkit.{Scratch, TestService}
import com.typesafe.config.ConfigException
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import scala.concurrent.duration.*

class EnrichmentSettingsSpec extends AnyFlatSpec with Matchers:
  private val reference = TestService.config(Map.empty)

  "EnrichmentSettings" should "read each key into its field" in {
    val e = EnrichmentSettings(TestService.config(Map(
      "bulkhead.enrichment.routees" -> 3,
      "bulkhead.enrichment.soap.mode" -> "blocking",
      "bulkhead.enrichment.soap.endpoint" -> "https://third.party/soap",
      "bulkhead.enrichment.soap.work-queue.core" -> 2,
      "bulkhead.enrichment.soap.work-queue.max" -> 9,
      "bulkhead.enrichment.soap.work-queue.keep-alive" -> "3s",
      "bulkhead.enrichment.soap.admission.queue" -> 11,
      "bulkhead.enrichment.soap.admission.max-wait" -> "700ms",
      "bulkhead.enrichment.soap.circuit-breaker.max-failures" -> 4,
      "bulkhead.enrichment.redis.connections" -> "shared",
      "bulkhead.enrichment.redis.uri" -> "rediss://127.0.0.1:6380")))
    (e.routees, e.soap.mode, e.soap.endpoint, e.soap.breaker.maxFailures) shouldBe
      (3, SoapMode.Blocking, "https://third.party/soap", 4)
    e.soap.workQueue shouldBe WorkQueueSettings(2, 9, 9, 3.seconds)
    e.soap.admission shouldBe AdmissionSettings(11, 700.millis)
    // The blocking client's slots are its threads; the other modes' are max-connections.
    e.soap.slots shouldBe 9
    e.soap.copy(mode = SoapMode.Virtual).slots shouldBe e.soap.maxConnections
    (e.redis.connections, e.redis.uri) shouldBe (RedisConnections.Shared, "rediss://127.0.0.1:6380")
  }

  it should "accept the defaults, whose SOAP connections lift Pekko's client pool cap" in {
    val e = EnrichmentSettings(reference)
    e.soap.maxConnections should be > reference.getInt("pekko.http.host-connection-pool.max-connections")
    e.soap.workQueue.max should be >= e.soap.workQueue.core
  }

  it should "refuse a bad value with its key named" in {
    val cases = Seq(
      "bulkhead.enrichment.soap.mode" -> "turbo",
      "bulkhead.enrichment.soap.endpoint" -> "ftp://nope",
      "bulkhead.enrichment.redis.uri" -> "http://nope",
      "bulkhead.enrichment.redis.connections" -> "pooled",
      "bulkhead.enrichment.soap.work-queue.max" -> 2,
      "bulkhead.enrichment.soap.admission.max-wait" -> "-1s",
      "bulkhead.enrichment.soap.admission.queue" -> -1,
      "bulkhead.enrichment.routees" -> 0)
    for (key, value) <- cases do
      val config = TestService.config(Map(key -> value, "bulkhead.enrichment.soap.work-queue.core" -> 5))
      val e = the[ConfigException] thrownBy EnrichmentSettings(config)
      withClue(s"$key = $value: ")(e.getMessage should include(key))
  }

  "The Redis password" should "come from --redis-password-file or the environment, and never show in the settings" in {
    val file = Scratch.file("redis-password", "")
    try
      java.nio.file.Files.writeString(file, "from-file-pw\n")
      val env = Map(EnrichmentSettings.RedisPasswordVariable -> "from-env-pw")
      val fromFile = EnrichmentSettings(
        ServiceCommandLine.parse(Seq("--redis-password-file", file.toString)).toOption.get, env)
      fromFile.redis.password.map(_.reveal) shouldBe Some("from-file-pw")
      fromFile.toString should not include "from-file-pw"
      EnrichmentSettings(reference, env).redis.password.map(_.reveal) shouldBe Some("from-env-pw")
      EnrichmentSettings(reference, Map.empty).redis.password shouldBe None
      val missing = the[ConfigException] thrownBy EnrichmentSettings(
        TestService.config(Map("bulkhead.enrichment.redis.password-file" -> "/nonexistent/pw")))
      missing.getMessage should include("password-file")
    finally java.nio.file.Files.delete(file)
  }

  it should "not be quoted when the Redis URI is malformed" in {
    val e = the[ConfigException] thrownBy EnrichmentSettings(
      TestService.config(Map("bulkhead.enrichment.redis.uri" -> "redis://:s3cret-pw@127.0.0 .1:6379")))
    e.getMessage should include("bulkhead.enrichment.redis.uri")
    e.getMessage should not include "s3cret-pw"
  }
