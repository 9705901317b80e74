package bulkhead.lab.peers

import bulkhead.lab.model.Target
import bulkhead.lab.process.{Children, Postgres, Served, Stack}
import bulkhead.lab.testkit.Fixtures
import org.scalatest.BeforeAndAfterAll
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.net.URI
import java.net.http.{HttpClient, HttpRequest, HttpResponse}
import java.nio.file.Files
import java.util.concurrent.TimeUnit
import scala.concurrent.duration.*

/**
 * The zoo's servers, started as the lab starts them: /hello and /work answered, /work held by the app's one capped
 * resource (requests at once take as long as the resource serialises them), and bad flags refused by name.
 */
@Slow
class ZooSpec extends AnyFlatSpec with Matchers with BeforeAndAfterAll:
  private val launch = Fixtures.launch
  private val stack = Stack(launch, Files.createTempDirectory("lab-zoo"))
  // One PostgreSQL for the spec's two database apps (initdb and a start cost seconds); stopped and dropped last.
  private val pgDir = Files.createTempDirectory("lab-zoo-pg")
  private lazy val postgres = Postgres.start(pgDir)
  override def afterAll(): Unit =
    try Children.stopAll()
    finally Postgres.drop(pgDir)

  // HTTP/1.1, as wrk: a connection per request in flight (Vert.x would take an h2c upgrade and multiplex them on one).
  private val http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()

  private def send(url: String) = http.sendAsync(HttpRequest.newBuilder(URI.create(url))
    .timeout(java.time.Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString())

  private def get(s: Served, path: String): (Int, String) =
    val r = send(s.url(path)).get(30, TimeUnit.SECONDS)
    (r.statusCode(), r.body())

  /** `n` requests of /work at once: every answer's status, and the milliseconds until the last one. */
  private def atOnce(s: Served, n: Int): (Seq[Int], Long) =
    val started = System.nanoTime()
    val answers = (1 to n).map(_ => send(s.url("/work"))).map(_.get(30, TimeUnit.SECONDS).statusCode())
    (answers, (System.nanoTime() - started) / 1_000_000)

  private def withZoo[A](flags: Seq[String])(body: Served => A): A =
    val app = stack.peer(Target.Zoo, flags)
    try body(app)
    finally app.child.stop()

  /** The zoo started with `args` as a program: its exit code and output, once it exits. */
  private def run(args: Seq[String]): (Int, String) =
    val p = ProcessBuilder((Seq(launch.java) ++ launch.jvmFlags ++ Seq("-Xmx128m", "-cp", launch.peers(Target.Zoo),
      Target.Zoo.mainClass, "--port", "0") ++ args)*).redirectErrorStream(true).start()
    val out = scala.concurrent.Future(String(p.getInputStream.readAllBytes()))(scala.concurrent.ExecutionContext.global)
    if !p.waitFor(30, TimeUnit.SECONDS) then
      p.destroyForcibly()
      fail(s"zoo ${args.mkString(" ")} did not exit in 30 s")
    (p.exitValue(), scala.concurrent.Await.result(out, 5.seconds))

  // Each app with its resource holding a request 200 ms: requests at once beyond its capacity wait their turn.
  Seq(
    ("undertow-lock", Seq("--hold-ms", "200"), 3, 600),
    ("undertow-reentrant", Seq("--hold-ms", "200"), 3, 600),
    ("undertow-semaphore", Seq("--permits", "2", "--hold-ms", "200"), 4, 400),
    ("undertow-io-blocked", Seq("--io-threads", "1", "--hold-ms", "200"), 2, 400),
    ("vertx-blocked", Seq("--event-loops", "1", "--hold-ms", "200"), 2, 400)).foreach { (app, knobs, n, leastMs) =>
    s"The zoo's $app" should s"answer /hello and /work with OK, and $n of /work at once in $leastMs ms or more" in {
      withZoo(Seq("--app", app) ++ knobs) { s =>
        get(s, "/hello") shouldBe (200, "OK")
        get(s, "/work") shouldBe (200, "OK")
        val (statuses, ms) = atOnce(s, n)
        statuses shouldBe Seq.fill(n)(200)
        ms should be >= leastMs.toLong
      }
    }
  }

  "The zoo's vertx-blocked" should "serve connections on each of its event loops" in {
    withZoo(Seq("--app", "vertx-blocked", "--event-loops", "2", "--hold-ms", "1000")) { s =>
      val (statuses, ms) = atOnce(s, 2)
      statuses shouldBe Seq(200, 200)
      // On one loop the second would wait for the first: 2 s.
      ms should be < 1900L
    }
  }

  "The zoo's httpclient-pool" should "call the SOAP stub through its pool, and answer 502 when the stub is down" in {
    val stub = stack.stub(Seq("--latency", "fixed:200"))
    try
      withZoo(Seq("--app", "httpclient-pool", "--max-connections", "1", "--soap-endpoint", stub.url("/soap"))) { s =>
        get(s, "/hello") shouldBe (200, "OK")
        get(s, "/work") shouldBe (200, "OK")
        val (statuses, ms) = atOnce(s, 2)
        statuses shouldBe Seq(200, 200)
        ms should be >= 400L
      }
    finally stub.child.stop()
    val nowhere = s"http://127.0.0.1:${Stack.freePort()}/soap"
    withZoo(Seq("--app", "httpclient-pool", "--soap-endpoint", nowhere)) { s =>
      val (status, body) = get(s, "/work")
      status shouldBe 502
      body should include("\"error\": \"third party unreachable\"")
    }
  }

  // async-client (HttpAsyncClient, connections per route) and future-pool (a fixed executor): 2 calls of 200 ms at
  // once on 1 connection or 1 thread take two rounds; an unreachable third party is a 502 at once.
  Seq(("async-client", "--max-connections"), ("future-pool", "--pool-size")).foreach { (app, size) =>
    s"The zoo's $app" should s"wait on the futures of its calls to the stub, $size 1 at a time, and answer 502 " +
      "when the stub is down" in {
      val stub = stack.stub(Seq("--latency", "fixed:200"))
      try
        withZoo(Seq("--app", app, size, "1", "--soap-endpoint", stub.url("/soap"))) { s =>
          get(s, "/hello") shouldBe (200, "OK")
          get(s, "/work") shouldBe (200, "OK")
          val (statuses, ms) = atOnce(s, 2)
          statuses shouldBe Seq(200, 200)
          ms should be >= 400L
        }
      finally stub.child.stop()
      withZoo(Seq("--app", app, "--soap-endpoint", s"http://127.0.0.1:${Stack.freePort()}/soap")) { s =>
        val (status, body) = get(s, "/work")
        status shouldBe 502
        body should include("\"error\": \"third party unreachable\"")
      }
    }
  }

  "The zoo's jedis-held" should "hold a pooled Redis connection across its sleep: 2 at once on 1 take two rounds" in {
    val redis = stack.redis()
    try
      withZoo(Seq("--app", "jedis-held", "--pool-size", "1", "--hold-ms", "200", "--redis-uri",
          s"redis://127.0.0.1:${redis.port}")) { s =>
        get(s, "/hello") shouldBe (200, "OK")
        get(s, "/work") shouldBe (200, "OK")
        val (statuses, ms) = atOnce(s, 2)
        statuses shouldBe Seq(200, 200)
        ms should be >= 400L
      }
    finally redis.child.stop()
  }

  "The zoo's password-hashing" should "hash on its workers and answer every request at once with OK" in {
    withZoo(Seq("--app", "password-hashing", "--worker-threads", "4", "--iterations", "1000")) { s =>
      get(s, "/hello") shouldBe (200, "OK")
      val (statuses, _) = atOnce(s, 8)
      statuses shouldBe Seq.fill(8)(200)
    }
  }

  // hikari-pg (Undertow) and spring-hikari (Spring Boot on Tomcat, JdbcTemplate): n queries at once on `pool`
  // connections of 200 ms each take n / pool rounds.
  Seq(("hikari-pg", 1, 2, 400), ("spring-hikari", 2, 6, 600)).foreach { (app, pool, n, leastMs) =>
    s"The zoo's $app" should
      s"query PostgreSQL through its pool, $n at once on $pool connections in $leastMs ms or more" in {
      val url = Postgres.jdbcUrl(postgres)
      withZoo(Seq("--app", app, "--pool-size", pool.toString, "--hold-ms", "200", "--jdbc-url", url)) { s =>
        get(s, "/hello") shouldBe (200, "OK")
        get(s, "/work") shouldBe (200, "OK")
        val (statuses, ms) = atOnce(s, n)
        statuses shouldBe Seq.fill(n)(200)
        ms should be >= leastMs.toLong
      }
    }
  }

  "The zoo's PostgreSQL" should "leave no data directory once stopped and dropped" in {
    postgres.child.stop()
    Postgres.drop(pgDir)
    Files.exists(pgDir.resolve("postgres")) shouldBe false
  }

  Seq(
    Seq("--app", "hikari-pg") -> "--jdbc-url",
    Seq("--app", "hikari-pg", "--jdbc-url", "jdbc:mysql://127.0.0.1/x") -> "--jdbc-url",
    Seq("--app", "hikari-pg", "--jdbc-url", "jdbc:postgresql://127.0.0.1:1/x", "--pool-size", "0") -> "--pool-size",
    Seq("--app", "spring-hikari") -> "--jdbc-url",
    Seq("--app", "spring-hikari", "--jdbc-url", "jdbc:postgresql://127.0.0.1:1/x", "--hold-ms", "x") -> "--hold-ms",
    Seq("--app", "spring-hikari", "--jdbc-url", "jdbc:postgresql://127.0.0.1:1/x", "--worker-threads", "8") ->
      "--worker-threads",
    Seq("--app", "spring-hikari", "--jdbc-url", "jdbc:postgresql://127.0.0.1:1/x", "--virtual-threads", "yes") ->
      "--virtual-threads",
    Seq("--app", "spring-hikari", "--jdbc-url", "jdbc:postgresql://127.0.0.1:1/x", "--tls-port", "0") ->
      "javax.net.ssl.keyStore",
    Seq("--app", "undertow-lock", "--hold-ms", "-1") -> "--hold-ms",
    Seq("--app", "undertow-reentrant", "--worker-threads", "0") -> "--worker-threads",
    Seq("--app", "undertow-semaphore", "--permits", "0") -> "--permits",
    Seq("--app", "undertow-io-blocked", "--io-threads", "many") -> "--io-threads",
    Seq("--app", "vertx-blocked", "--event-loops", "0") -> "--event-loops",
    Seq("--app", "httpclient-pool", "--soap-endpoint", "nowhere") -> "--soap-endpoint",
    Seq("--app", "httpclient-pool") -> "--soap-endpoint",
    Seq("--app", "undertow-lock", "--permits", "2") -> "--permits",
    Seq("--app", "async-client") -> "--soap-endpoint",
    Seq("--app", "future-pool", "--soap-endpoint", "http://127.0.0.1:1/soap", "--pool-size", "0") -> "--pool-size",
    Seq("--app", "jedis-held") -> "--redis-uri",
    Seq("--app", "jedis-held", "--redis-uri", "http://127.0.0.1:1") -> "--redis-uri",
    Seq("--app", "password-hashing", "--iterations", "0") -> "--iterations",
    Seq("--app", "undertow") -> "undertow",
    Seq("--app", "vertx-blocked", "--threads", "2") -> "--threads").foreach { (args, named) =>
    s"The zoo given ${args.mkString(" ")}" should s"exit with code 2 and a message naming $named" in {
      val (code, out) = run(args)
      withClue(out) {
        code shouldBe 2
        out should include(named)
        out should not include "listening"
      }
    }
  }
