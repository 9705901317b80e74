package bulkhead.service.redis

import bulkhead.service.config.{RedisConnections, RedisSettings}
import bulkhead.service.enrichment.LoyaltyProfile
import bulkhead.service.testkit.HttpProbe.eventually
import bulkhead.service.testkit.RedisProcess
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import scala.concurrent.duration.*
import scala.concurrent.{Await, ExecutionContext}

/** Profiles from a real redis-server through Lettuce: reading, connections per routee, and Redis going away. */
class LettuceProfileStoresSpec extends AnyFlatSpec with Matchers:
  // Lettuce opens its connections in the background; a cold JVM on a loaded 2-core machine took over 10 s once.
  private given ExecutionContext = ExecutionContext.global

  private def withStores[A](redis: RedisProcess, connections: RedisConnections, routees: Int = 3)(
      body: LettuceProfileStores => A): A =
    val stores = LettuceProfileStores(RedisSettings(redis.uri, None, connections, 500.millis, 50.millis), routees)
    try body(stores)
    finally stores.close()

  private def profile(stores: LettuceProfileStores, routee: Int, id: Int) =
    Await.result(stores.forRoutee(routee).profile(id), 5.seconds)

  "LettuceProfileStores.read" should "make a profile of a hash with points, tier and lastOrder, and nothing else" in {
    val full = Map("points" -> "120", "tier" -> "gold", "lastOrder" -> "2026-11-01")
    LettuceProfileStores.read(full) shouldBe Some(LoyaltyProfile(120, "gold", "2026-11-01"))
    LettuceProfileStores.read(full + ("extra" -> "x")) shouldBe Some(LoyaltyProfile(120, "gold", "2026-11-01"))
    LettuceProfileStores.read(Map.empty) shouldBe None
    LettuceProfileStores.read(full - "tier") shouldBe None
    LettuceProfileStores.read(full + ("points" -> "many")) shouldBe None
  }

  "LettuceProfileStores" should "read a customer's hash from Redis, and a customer without one as None" in
    RedisProcess.withRedis { redis =>
      redis.cli("HSET", "customer:7", "points", "5", "tier", "basic", "lastOrder", "2026-01-01") shouldBe "3"
      withStores(redis, RedisConnections.PerRoutee) { stores =>
        eventually(tries = 600)(stores.openConnections == 3) shouldBe true
        profile(stores, 0, 7) shouldBe Right(Some(LoyaltyProfile(5, "basic", "2026-01-01")))
        profile(stores, 2, 8) shouldBe Right(None)
      }
    }

  it should "open one connection per routee, or one for all when shared" in RedisProcess.withRedis { redis =>
    def named(prefix: String) = redis.cli("CLIENT", "LIST").linesIterator.count(_.contains(s"name=$prefix"))
    withStores(redis, RedisConnections.PerRoutee, routees = 4) { stores =>
      eventually(tries = 600)(stores.openConnections == 4) shouldBe true
      named("bulkhead-routee-") shouldBe 4
    }
    withStores(redis, RedisConnections.Shared, routees = 4) { stores =>
      eventually(tries = 600)(stores.openConnections == 1) shouldBe true
      named("bulkhead-shared") shouldBe 1
      stores.forRoutee(0) shouldBe theSameInstanceAs(stores.forRoutee(3))
    }
  }

  it should "answer ProfileUnavailable while Redis is down and read again once it is back" in
    RedisProcess.withRedis { first =>
      withStores(first, RedisConnections.Shared) { stores =>
        eventually()(profile(stores, 0, 1) == Right(None)) shouldBe true
        first.stop()
        eventually()(profile(stores, 0, 1).isLeft) shouldBe true
        val again = first.restart()
        try
          again.cli("HSET", "customer:1", "points", "1", "tier", "t", "lastOrder", "d")
          eventually(tries = 100, pauseMs = 100)(profile(stores, 0, 1).exists(_.isDefined)) shouldBe true
        finally again.stop()
      }
    }
