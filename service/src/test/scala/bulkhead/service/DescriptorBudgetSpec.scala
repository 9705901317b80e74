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

  // The shipped defaults: 16,384 + 1,024 refused + what the listener may hold + the SOAP client's connections + 20
  // Redis + 256.
  private val shipped = settings()
  private val shippedSum = DescriptorBudget.needs(shipped).map(_._2).sum
  private def sum(overrides: (String, Any)*): Int = DescriptorBudget.needs(settings(overrides*)).map(_._2).sum
  private val pekko = "bulkhead.service.server.transport" -> "pekko"
  private val selector = "bulkhead.service.server.transport" -> "selector"
  private def batch(n: Int) = "bulkhead.service.server.accept-batch" -> n
  private def listeners(n: Int) = "bulkhead.service.server.listeners" -> n

  "DescriptorBudget" should "count served, refused, held, SOAP and Redis connections and a margin for files" in {
    val e = shipped.enrichment
    val held = shipped.server.transport match
      case bulkhead.service.config.SocketTransport.Selector => shipped.server.acceptBatch
      case bulkhead.service.config.SocketTransport.Pekko => shipped.server.acceptBatch - 1
    // Redis: the one shared connection the service ships with.
    shippedSum shouldBe 16384 + 1024 + held + e.soap.slots + 1 + DescriptorBudget.FilesMargin
  }

  it should "count a batch less one held by each listener on Pekko's transport, a whole batch on the selector's" in {
    val none = sum(pekko, batch(1), listeners(1))
    sum(pekko, batch(16), listeners(3)) shouldBe none + 3 * 15
    sum(selector, batch(16), listeners(3)) shouldBe none + 3 * 16
    sum(selector, batch(1), listeners(1)) shouldBe none + 1
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

  it should "count a Redis connection per routee when per-routee and the SOAP pool's size when it grows" in {
    val perRoutee = settings("bulkhead.enrichment.redis.connections" -> "per-routee",
      "bulkhead.enrichment.soap.mode" -> "non-blocking", "bulkhead.enrichment.soap.max-connections" -> 500)
    DescriptorBudget.needs(perRoutee).map(_._2).sum shouldBe
      16384 + 1024 + shipped.server.acceptBatch + 500 + shipped.enrichment.routees + DescriptorBudget.FilesMargin
    val fewer = settings("bulkhead.service.server.max-connections" -> 1000)
    val fewerSum = DescriptorBudget.needs(fewer).map(_._2).sum
    fewerSum shouldBe shippedSum - 16384 + 1000
    DescriptorBudget.check(fewerSum, fewer) shouldBe Right(())
  }
