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

  "HeapBudget" should "need the heads in progress the budget allows at their heap cost, 16,384 connections' state, " +
    "their read-ahead and a working set with the shipped settings" in {
    HeapBudget.headBytes(shipped) shouldBe 256 * MiB
    HeapBudget.readAheadBytes(shipped) shouldBe 1024
    HeapBudget.required(shipped) shouldBe
      (256 * MiB * HeapBudget.HeadByteCost).toLong + 16384L * HeapBudget.ConnectionBytes +
        (16384L + 1024) * 1024 + HeapBudget.BaseBytes
    HeapBudget.required(shipped) shouldBe 1169 * MiB
    HeapBudget.xmx(shipped) shouldBe "-Xmx1169m"
  }

  it should "count what each transport reads ahead of the HTTP layer: the selector's read-ahead, one of Pekko's reads" in {
    val pekko = settings("bulkhead.service.server.transport" -> "pekko")
    HeapBudget.readAheadBytes(pekko) shouldBe 16 * 1024 // pekko.io.tcp.direct-buffer-size as the service sets it
    HeapBudget.required(pekko) - HeapBudget.required(shipped) shouldBe (16384L + 1024) * (16 * 1024 - 1024)
    val Left(message) = HeapBudget.check(1169 * MiB, pekko): @unchecked
    message should include("272 MiB of bytes read ahead (17408 connections with refused-connections x 16.0 KiB, " +
      "server.transport=pekko)")
    val pekkoDefault = settings("bulkhead.service.server.transport" -> "pekko", "pekko.io.tcp.direct-buffer-size" -> "128KiB")
    HeapBudget.readAheadBytes(pekkoDefault) shouldBe 128 * 1024
  }

  it should "accept the heap it asks for and refuse one byte less, naming the figures and the settings to lower" in {
    HeapBudget.check(1169 * MiB, shipped) shouldBe Right(())
    val Left(message) = HeapBudget.check(1169 * MiB - 1, shipped): @unchecked
    message should include("640 MiB of request heads in progress " +
      "(bulkhead.service.server.max-head-bytes-in-progress=268435456, x 2.5 heap a byte)")
    message should include("384 MiB of connection state (16384 x 24 KiB)")
    message should include("17 MiB of bytes read ahead (17408 connections with refused-connections x 1.0 KiB, " +
      "server.transport=selector)")
    message should include("-Xmx1169m")
    message should include("--max-connections")
    message should include("bulkhead.service.server.max-head-bytes-in-progress or")
    val Left(small) = HeapBudget.check(256 * MiB, shipped): @unchecked
    small should include("heap is 256 MiB")
  }

  it should "follow the budget, and max-connections x max-head-bytes where that is lower, rounding up to whole MiB" in {
    val budget = settings("bulkhead.service.server.max-head-bytes-in-progress" -> "64MiB")
    HeapBudget.required(budget) shouldBe
      160 * MiB + 16384L * HeapBudget.ConnectionBytes + (16384L + 1024) * 1024 + HeapBudget.BaseBytes
    val fewer = settings("bulkhead.service.server.max-connections" -> 1000)
    HeapBudget.headBytes(fewer) shouldBe 1000L * 64 * 1024
    HeapBudget.required(fewer) shouldBe (1000L * 64 * 1024 * HeapBudget.HeadByteCost).toLong +
      1000L * HeapBudget.ConnectionBytes + (1000L + 1024) * 1024 + HeapBudget.BaseBytes
    HeapBudget.check(512 * MiB, fewer) shouldBe Right(())
    val Left(named) = HeapBudget.check(256 * MiB, fewer): @unchecked
    named should include("bulkhead.service.server.max-connections=1000 x bulkhead.service.server.max-head-bytes=65536")
    val odd = settings("bulkhead.service.server.max-connections" -> 3, "bulkhead.service.server.max-head-bytes" -> 1025)
    HeapBudget.xmx(odd) shouldBe "-Xmx130m" // 128 MiB, 72 KiB of state, ~8 KB of heads, 1,027 KiB read ahead
  }

  it should "fit the heaps the lab's scenarios give the service with their flags" in {
    // bench connections: 400 MB for 10,000 connections; bench ab heap-1g and all-off: 1 GB for 8,192.
    val connections = settings("bulkhead.service.server.max-connections" -> 10000,
      "bulkhead.service.server.max-head-bytes-in-progress" -> "8MiB")
    HeapBudget.check(400 * MiB, connections) shouldBe Right(())
    HeapBudget.check(1024 * MiB, settings("bulkhead.service.server.max-connections" -> 8192)) shouldBe Right(())
  }
