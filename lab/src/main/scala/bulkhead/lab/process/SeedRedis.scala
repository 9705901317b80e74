package bulkhead.lab.process

import io.lettuce.core.RedisClient
import io.lettuce.core.api.StatefulRedisConnection
import scopt.OParser

import java.util.concurrent.TimeUnit
import scala.jdk.CollectionConverters.*

/** `./bulkhead seed-redis`: loyalty profiles `customer:{id}` for ids 1..N, deterministic, pipelined. */
object SeedRedis:
  private val Tiers = Vector("basic", "silver", "gold", "platinum")

  def profile(id: Int): Map[String, String] =
    Map("points" -> ((id * 37L) % 10000).toString, "tier" -> Tiers(id % Tiers.size),
      "lastOrder" -> f"2026-${id % 12 + 1}%02d-${id % 28 + 1}%02d")

  /** Writes the profiles; returns how many were written. */
  def load(uri: String, customers: Int): Int =
    val client = RedisClient.create(uri)
    try
      val connection: StatefulRedisConnection[String, String] = client.connect()
      try
        val async = connection.async()
        (1 to customers).grouped(1000).foreach { batch =>
          val futures = batch.map(id => async.hset(s"customer:$id", profile(id).asJava))
          futures.foreach(_.get(30, TimeUnit.SECONDS))
        }
        customers
      finally connection.close()
    finally client.shutdown()

  final case class Options(uri: String = "redis://127.0.0.1:6379", customers: Int = 100000)

  def main(args: Array[String]): Unit =
    val b = OParser.builder[Options]
    val parser =
      import b.*
      OParser.sequence(
        programName("bulkhead seed-redis"),
        opt[String]("redis-uri").text("Redis URI (default redis://127.0.0.1:6379)").validate(u =>
          if u.startsWith("redis://") || u.startsWith("rediss://") then success
          else failure(s"--redis-uri must start with redis:// or rediss://, was '$u'"))
          .action((u, o) => o.copy(uri = u)),
        opt[Int]("customers").text("profiles for ids 1..N (default 100000)").validate(n =>
          if n >= 1 && n <= 10_000_000 then success else failure(s"--customers must be 1..10000000, was $n"))
          .action((n, o) => o.copy(customers = n)),
        help("help"))
    val o = OParser.parse(parser, args, Options()).getOrElse(sys.exit(2))
    try println(s"seeded ${load(o.uri, o.customers)} profiles into ${o.uri}")
    catch
      case e: Exception =>
        System.err.println(s"bulkhead seed-redis: cannot write to ${o.uri}: ${e.getMessage}")
        sys.exit(1)
