package bulkhead.service

import bulkhead.service.config.ServiceSettings
import com.typesafe.config.ConfigFactory
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import scala.jdk.CollectionConverters.*

/** The heap `serve` needs against the one it was given, on the shipped settings and changed ones. */
class HeapBudgetSpec extends AnyFlatSpec with Matchers:
  private val MiB = 1L << 20

  private def settings(overrides: (String, Any)*): ServiceSettings =
    ServiceSettings(ConfigFactory.parseMap(overrides.toMap.asJava).withFallback(ConfigFactory.load()).resolve())

  private val shipped = settings()

  "HeapBudget" should "need 16,384 heads of 64 KiB, their connections' state and a working set with the shipped settings" in {
    HeapBudget.required(shipped) shouldBe 16384L * 64 * 1024 + 16384L * HeapBudget.ConnectionBytes + HeapBudget.BaseBytes
    HeapBudget.required(shipped) shouldBe 1536 * MiB
    HeapBudget.xmx(shipped) shouldBe "-Xmx1536m"
  }

  it should "accept the heap it asks for and refuse one byte less, naming the figures and the settings to lower" in {
    HeapBudget.check(1536 * MiB, shipped) shouldBe Right(())
    val Left(message) = HeapBudget.check(1536 * MiB - 1, shipped): @unchecked
    message should include("1024 MiB of request heads (bulkhead.service.server.max-connections=16384 x " +
      "bulkhead.service.server.max-head-bytes=65536)")
    message should include("-Xmx1536m")
    message should include("--max-connections")
    val Left(small) = HeapBudget.check(256 * MiB, shipped): @unchecked
    small should include("heap is 256 MiB")
  }

  it should "follow max-connections and max-head-bytes, and round the heap up to whole MiB" in {
    val fewer = settings("bulkhead.service.server.max-connections" -> 1000)
    HeapBudget.required(fewer) shouldBe 1000L * (64 * 1024 + HeapBudget.ConnectionBytes) + HeapBudget.BaseBytes
    HeapBudget.check(256 * MiB, fewer) shouldBe Right(())
    val odd = settings("bulkhead.service.server.max-connections" -> 3, "bulkhead.service.server.max-head-bytes" -> 1025)
    HeapBudget.xmx(odd) shouldBe "-Xmx129m"
    val small = settings("bulkhead.service.server.max-connections" -> 10000,
      "bulkhead.service.server.max-head-bytes" -> "2KiB")
    HeapBudget.check(400 * MiB, small) shouldBe Right(())
  }
