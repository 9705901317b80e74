package bulkhead.lab.peers

import bulkhead.lab.model.Target
import bulkhead.lab.process.{Children, Postgres, Served, Stack}
import bulkhead.lab.testkit.{Fixtures, Scratch}
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
  private val dir = Scratch.dir("lab-zoo")
  private val stack = Stack(launch, dir)
  // One PostgreSQL for the spec's two database apps (initdb and a start cost seconds); stopped and dropped last.
  private val pgDir = Scratch.dir("lab-zoo-pg")
  private lazy val postgres = Postgres.start(pgDir)
  // One SOAP stub of 200 ms for the spec's three apps that call it (a stub's JVM start costs seconds); stopped last.
  private lazy val stub = stack.stub(Seq("--latency", "fixed:200"))
  private lazy val redis = stack.redis()
  override def afterAll(): Unit =
    try
      refusalPool.shutdownNow()
      aheadPool.shutdownNow()
      Children.stopAll()
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

  // Each app at its 200 ms hold: requests at once beyond its capacity wait their turn (at least `leastMs`).
  private val held = Seq(
    ("undertow-lock", Seq("--hold-ms", "200"), 3, 600),
    ("undertow-reentrant", Seq("--hold-ms", "200"), 3, 600),
    ("undertow-semaphore", Seq("--permits", "2", "--hold-ms", "200"), 4, 400),
    ("undertow-io-blocked", Seq("--io-threads", "1", "--hold-ms", "200"), 2, 400),
    ("vertx-blocked", Seq("--event-loops", "1", "--hold-ms", "200"), 2, 400))
  // The apps that call the stub, each with its knob of calls at once, then again with no third party to reach.
  private val calling = Seq("httpclient-pool" -> "--max-connections", "async-client" -> "--max-connections",
    "future-pool" -> "--pool-size")
  private def unreachable = s"http://127.0.0.1:${Stack.freePort()}/soap"
  private val pooled = Seq(("hikari-pg", 1, 2, 400), ("spring-hikari", 2, 6, 600))

  /**
   * The apps the cases below start, in their order, by name: each case's app is started while the two cases before it
   * run, whose requests mostly wait (on a 200 ms hold, the stub, PostgreSQL), and the case stops it. The cases' timings
   * are lower bounds, which a busy machine only lengthens; the one upper bound runs before any of this.
   */
  private val apps: Seq[(String, () => Seq[String])] =
    held.map((app, knobs, _, _) => app -> (() => Seq("--app", app) ++ knobs)) ++
      calling.flatMap((app, size) => Seq(
        app -> (() => Seq("--app", app, size, "1", "--soap-endpoint", stub.url("/soap"))),
        s"$app unreachable" -> (() => Seq("--app", app, "--soap-endpoint", unreachable)))) ++
      Seq("jedis-held" -> (() => Seq("--app", "jedis-held", "--pool-size", "1", "--hold-ms", "200", "--redis-uri",
          s"redis://127.0.0.1:${redis.port}")),
        "password-hashing" -> (() =>
          Seq("--app", "password-hashing", "--worker-threads", "4", "--iterations", "1000"))) ++
      pooled.map((app, pool, _, _) => app -> (() => Seq("--app", app, "--pool-size", pool.toString, "--hold-ms", "200",
        "--jdbc-url", Postgres.jdbcUrl(postgres))))
  private val aheadPool = java.util.concurrent.Executors.newFixedThreadPool(2, r => Thread(r, "zoo-ahead"))
  private val starting = scala.collection.concurrent.TrieMap.empty[String, scala.concurrent.Future[Served]]
  private def start(name: String): scala.concurrent.Future[Served] =
    val flags = apps.find(_._1 == name).getOrElse(fail(s"no app $name"))._2
    // Each in its own directory: a zoo's port file and log are named for the zoo, and two start at once.
    starting.getOrElseUpdate(name, scala.concurrent.Future(
      Stack(launch, dir.resolve(name.replace(' ', '-'))).peer(Target.Zoo, flags()))(
      scala.concurrent.ExecutionContext.fromExecutor(aheadPool)))

  /** The app `name` (started ahead, or now), with the next two starting meanwhile; stopped after `body`. */
  private def withApp[A](name: String)(body: Served => A): A =
    val own = start(name)
    apps.dropWhile(_._1 != name).slice(1, 3).foreach((next, _) => start(next))
    val app = scala.concurrent.Await.result(own, 2.minutes)
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

  // The one upper bound of the spec, first: nothing else starts beside it.
  "The zoo's vertx-blocked" should "serve connections on each of its event loops" in {
    withZoo(Seq("--app", "vertx-blocked", "--event-loops", "2", "--hold-ms", "1000")) { s =>
      val (statuses, ms) = atOnce(s, 2)
      statuses shouldBe Seq(200, 200)
      // On one loop the second would wait for the first: 2 s.
      ms should be < 1900L
    }
  }

  held.foreach { (app, _, n, leastMs) =>
    s"The zoo's $app" should s"answer /hello and /work with OK, and $n of /work at once in $leastMs ms or more" in {
      withApp(app) { s =>
        get(s, "/hello") shouldBe (200, "OK")
        get(s, "/work") shouldBe (200, "OK")
        val (statuses, ms) = atOnce(s, n)
        statuses shouldBe Seq.fill(n)(200)
        ms should be >= leastMs.toLong
      }
    }
  }

  // httpclient-pool (Apache HttpClient's pool), async-client (HttpAsyncClient, connections per route) and future-pool
  // (a fixed executor): 2 calls of 200 ms at once on 1 connection or 1 thread take two rounds; an unreachable third
  // party is a 502 at once.
  private def callsTheStub(app: String): Unit =
    withApp(app) { s =>
      get(s, "/hello") shouldBe (200, "OK")
      get(s, "/work") shouldBe (200, "OK")
      val (statuses, ms) = atOnce(s, 2)
      statuses shouldBe Seq(200, 200)
      ms should be >= 400L
    }
    withApp(s"$app unreachable") { s =>
      val (status, body) = get(s, "/work")
      status shouldBe 502
      body should include("\"error\": \"third party unreachable\"")
    }

  "The zoo's httpclient-pool" should "call the SOAP stub through its pool, and answer 502 when the stub is down" in {
    callsTheStub("httpclient-pool")
  }

  calling.drop(1).foreach { (app, size) =>
    s"The zoo's $app" should s"wait on the futures of its calls to the stub, $size 1 at a time, and answer 502 " +
      "when the stub is down" in {
      callsTheStub(app)
    }
  }

  "The zoo's jedis-held" should "hold a pooled Redis connection across its sleep: 2 at once on 1 take two rounds" in {
    withApp("jedis-held") { s =>
      get(s, "/hello") shouldBe (200, "OK")
      get(s, "/work") shouldBe (200, "OK")
      val (statuses, ms) = atOnce(s, 2)
      statuses shouldBe Seq(200, 200)
      ms should be >= 400L
    }
    redis.child.stop()
  }

  "The zoo's password-hashing" should "hash on its workers and answer every request at once with OK" in {
    withApp("password-hashing") { s =>
      get(s, "/hello") shouldBe (200, "OK")
      val (statuses, _) = atOnce(s, 8)
      statuses shouldBe Seq.fill(8)(200)
    }
  }

  // hikari-pg (Undertow) and spring-hikari (Spring Boot on Tomcat, JdbcTemplate): n queries at once on `pool`
  // connections of 200 ms each take n / pool rounds.
  pooled.foreach { (app, pool, n, leastMs) =>
    s"The zoo's $app" should
      s"query PostgreSQL through its pool, $n at once on $pool connections in $leastMs ms or more" in {
      withApp(app) { s =>
        get(s, "/hello") shouldBe (200, "OK")
        get(s, "/work") shouldBe (200, "OK")
        val (statuses, ms) = atOnce(s, n)
        statuses shouldBe Seq.fill(n)(200)
        ms should be >= leastMs.toLong
      }
    }
  }

  "The zoo's PostgreSQL" should "leave no data directory once stopped and dropped" in {
    Postgres.stop(pgDir, postgres)
    Postgres.drop(pgDir)
    Files.exists(pgDir.resolve("postgres")) shouldBe false
  }

  private val refusals: Seq[(Seq[String], String)] = Seq(
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
    Seq("--app", "vertx-blocked", "--threads", "2") -> "--threads")
  // The refusals' programs three at a time (a JVM's start is mostly one thread: on 2 cores three overlap), all started
  // at the first refusal's case; each case reads its own.
  private val refusalPool = java.util.concurrent.Executors.newFixedThreadPool(3, r => Thread(r, "zoo-refusals"))
  private lazy val refused: Map[Seq[String], scala.concurrent.Future[(Int, String)]] =
    val ec = scala.concurrent.ExecutionContext.fromExecutor(refusalPool)
    refusals.map((args, _) => args -> scala.concurrent.Future(run(args))(ec)).toMap

  refusals.foreach { (args, named) =>
    s"The zoo given ${args.mkString(" ")}" should s"exit with code 2 and a message naming $named" in {
      val (code, out) = scala.concurrent.Await.result(refused(args), 2.minutes)
      withClue(out) {
        code shouldBe 2
        out should include(named)
        out should not include "listening"
      }
    }
  }
