package bulkhead.service.redis

import bulkhead.service.config.{RedisConnections, RedisSettings, ServiceSettings}
import bulkhead.service.enrichment.LoyaltyProfile
import bulkhead.service.testkit.HttpProbe.eventually
import bulkhead.service.testkit.RedisProcess
import com.typesafe.config.ConfigFactory
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.io.{BufferedReader, InputStreamReader}
import java.net.{ServerSocket, Socket}
import java.nio.charset.StandardCharsets.UTF_8
import scala.concurrent.duration.*
import scala.concurrent.{Await, ExecutionContext}
import scala.util.control.NonFatal

/** Profiles from a real redis-server through Lettuce: reading, connections per routee, and Redis going away. */
@Slow
class LettuceProfileStoresSpec extends AnyFlatSpec with Matchers:
  // Lettuce opens its connections in the background; a cold JVM on a loaded 2-core machine took over 10 s once.
  private given ExecutionContext = ExecutionContext.global

  /** The shipped Redis settings (from reference.conf), pointed at `uri`, with a faster timeout and reconnect. */
  private def settings(uri: String, connections: RedisConnections): RedisSettings =
    ServiceSettings(ConfigFactory.load()).enrichment.redis
      .copy(uri = uri, connections = connections, timeout = 500.millis, reconnectMaxDelay = 50.millis)

  private def withStores[A](redis: RedisProcess, connections: RedisConnections, routees: Int = 3)(
      body: LettuceProfileStores => A): A =
    val stores = LettuceProfileStores(settings(redis.uri, connections), routees)
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

  it should "bound its request queue to max-in-flight and keep its connections alive, as reference.conf ships" in {
    val shipped = ServiceSettings(ConfigFactory.load()).enrichment
    val stores = LettuceProfileStores(shipped.redis.copy(uri = "redis://127.0.0.1:1"), 1)
    try
      val options = stores.clientOptions
      options.getRequestQueueSize shouldBe shipped.maxInFlight
      options.getRequestQueueSize shouldBe 4000
      val keepAlive = options.getSocketOptions.getKeepAlive
      keepAlive.isEnabled shouldBe true
      keepAlive.getIdle shouldBe java.time.Duration.ofSeconds(15)
      keepAlive.getInterval shouldBe java.time.Duration.ofSeconds(5)
      keepAlive.getCount shouldBe 3
    finally stores.close()
  }

  it should "fail a command beyond its request queue at once when Redis accepts and stops answering" in
    withSilentRedis { uri =>
      val queue = 4
      val stores = LettuceProfileStores(
        settings(uri, RedisConnections.Shared).copy(timeout = 30.seconds, requestQueueSize = queue), 1)
      try
        eventually(tries = 600)(stores.openConnections == 1) shouldBe true
        val pending = (1 to queue).map(id => stores.forRoutee(0).profile(id))
        val start = System.nanoTime()
        val beyond = Await.result(stores.forRoutee(0).profile(queue + 1), 5.seconds)
        (System.nanoTime() - start) / 1e9 should be < 1.0
        // Lettuce names its bound "request queue" before the connection is up and "internal stack" once it is.
        beyond.left.map(_.detail) should matchPattern {
          case Left(r: String) if r.contains("queue") || r.contains("stack size exceeded") => }
        pending.exists(_.isCompleted) shouldBe false
      finally stores.close()
    }

  it should "send nothing more to a Redis that stopped answering once a command timed out, and read again when it is back" in
    RedisProcess.withRedis { redis =>
      def reads() = """cmdstat_hgetall:calls=(\d+)""".r.findFirstMatchIn(redis.cli("INFO", "commandstats"))
        .fold(0)(_.group(1).toInt)
      def signal(name: String) = ProcessBuilder("kill", s"-$name", redis.pid.toString).start().waitFor() shouldBe 0
      withStores(redis, RedisConnections.Shared, routees = 1) { stores =>
        eventually(tries = 600)(profile(stores, 0, 1) == Right(None)) shouldBe true
        val before = reads()
        signal("STOP")
        try
          profile(stores, 0, 1).isLeft shouldBe true // waited the 500 ms timeout
          val start = System.nanoTime()
          (1 to 20).map(id => profile(stores, 0, id)).forall(_.isLeft) shouldBe true
          (System.nanoTime() - start) / 1e9 should be < 0.5 // held back: none waited the timeout
        finally signal("CONT")
        var attempts = 0
        eventually(tries = 50, pauseMs = 100) {
          attempts += 1
          profile(stores, 0, 1) == Right(None)
        } shouldBe true
        // The command in flight when Redis stopped, then only the ones tried since it came back.
        reads() - before should be <= 1 + attempts
      }
    }

  /**
   * A Redis that completes Lettuce's handshake (HELLO refused, so RESP2; OK to everything else) and then never answers
   * a read: the shape of a Redis that hangs with its socket open.
   */
  private def withSilentRedis[A](body: String => A): A =
    val server = ServerSocket(0)
    val accepted = java.util.concurrent.ConcurrentLinkedQueue[Socket]()
    daemon { () =>
      try
        while true do
          val socket = server.accept()
          accepted.add(socket)
          daemon(() => answerHandshake(socket))
      catch case NonFatal(_) => ()
    }
    try body(s"redis://127.0.0.1:${server.getLocalPort}")
    finally
      server.close()
      accepted.forEach(_.close())

  private def daemon(run: Runnable): Unit =
    val thread = Thread(run, "silent-redis")
    thread.setDaemon(true)
    thread.start()

  private def answerHandshake(socket: Socket): Unit =
    try
      val in = BufferedReader(InputStreamReader(socket.getInputStream, UTF_8))
      val out = socket.getOutputStream
      while true do
        val count = in.readLine().drop(1).toInt
        val args = (1 to count).map { _ =>
          in.readLine()
          in.readLine()
        }
        val reply = args.head.toUpperCase match
          case "HELLO" => Some("-ERR unknown command 'HELLO'\r\n")
          case "PING" => Some("+PONG\r\n")
          case "HGETALL" => None
          case _ => Some("+OK\r\n")
        reply.foreach { r =>
          out.write(r.getBytes(UTF_8))
          out.flush()
        }
    catch case NonFatal(_) => ()
