package bulkhead.service

import bulkhead.service.config.ServiceSettings
import com.typesafe.config.ConfigFactory
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import scala.jdk.CollectionConverters.*

/** The open files `serve` needs against the process's limit, on the shipped settings and changed ones. */
class DescriptorBudgetSpec extends AnyFlatSpec with Matchers:

  private def settings(overrides: (String, Any)*): ServiceSettings =
    ServiceSettings(ConfigFactory.parseMap(overrides.toMap.asJava).withFallback(ConfigFactory.load()).resolve())

  // The shipped defaults: 16,384 + 1,024 refused + the SOAP client's connections + 20 Redis + 256 (accept-batch 1
  // holds none).
  private val shipped = settings()
  private val shippedSum = DescriptorBudget.needs(shipped).map(_._2).sum

  "DescriptorBudget" should "count served, refused, held, SOAP and Redis connections and a margin for files" in {
    val e = shipped.enrichment
    shippedSum shouldBe 16384 + 1024 + e.soap.slots + e.routees + DescriptorBudget.FilesMargin
  }

  it should "count a batch less one held by each listener" in {
    val batches = settings("bulkhead.service.server.accept-batch" -> 16, "bulkhead.service.server.listeners" -> 3)
    DescriptorBudget.needs(batches).map(_._2).sum shouldBe shippedSum + 3 * 15
  }

  it should "let serve start when the limit holds the sum exactly" in {
    DescriptorBudget.check(shippedSum, shipped) shouldBe Right(())
    DescriptorBudget.check(1_048_576, shipped) shouldBe Right(())
  }

  it should "refuse below the sum, naming the limit, the sum and the settings to change" in {
    val Left(message) = DescriptorBudget.check(1024, shipped): @unchecked
    message should include("may open 1024 files (ulimit -n)")
    message should include(s"need up to $shippedSum")
    message should include("bulkhead.service.server.max-connections")
    message should include("bulkhead.enrichment.soap.")
    message should include("Redis connections")
    DescriptorBudget.check(shippedSum - 1, shipped).isLeft shouldBe true
  }

  it should "count one Redis connection when shared and the SOAP pool's size when it grows" in {
    val shared = settings("bulkhead.enrichment.redis.connections" -> "shared",
      "bulkhead.enrichment.soap.mode" -> "non-blocking", "bulkhead.enrichment.soap.max-connections" -> 500)
    DescriptorBudget.needs(shared).map(_._2).sum shouldBe 16384 + 1024 + 500 + 1 + DescriptorBudget.FilesMargin
    val fewer = settings("bulkhead.service.server.max-connections" -> 1000)
    val fewerSum = DescriptorBudget.needs(fewer).map(_._2).sum
    fewerSum shouldBe shippedSum - 16384 + 1000
    DescriptorBudget.check(fewerSum, fewer) shouldBe Right(())
  }
