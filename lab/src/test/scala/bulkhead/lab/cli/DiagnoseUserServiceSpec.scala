package bulkhead.lab.cli

import bulkhead.lab.diagnose.Diagnosis
import bulkhead.lab.load.{Requests, TargetsFile, Tls, UsersDriver, VegetaDriver}
import bulkhead.lab.model.{MetricsReading, Target}
import bulkhead.lab.process.{AnyCertificate, Children, Postgres, Served, Stack}
import bulkhead.lab.report.RouteRates
import bulkhead.lab.sample.{MeteredSampler, MetricsScrape, ServiceSampler}
import bulkhead.lab.testkit.{Fixtures, Scratch}
import org.scalatest.BeforeAndAfterAll
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.nio.file.Files
import scala.concurrent.duration.*

/**
 * `lab diagnose` on a service as a user has one: the zoo's Spring Boot app on Tomcat and HikariCP (4 connections,
 * each query 100 ms in PostgreSQL: 40 req/s), its orders taken by `POST /orders` with an `Authorization` header and a
 * JSON body (Spring answers 400 without either), over HTTPS with a self-signed certificate (a key made by keytool for
 * this run), its Micrometer meters on `/actuator/prometheus`. One PostgreSQL and one app for the whole spec; each load
 * runs a few seconds.
 */
@Slow
class DiagnoseUserServiceSpec extends AnyFlatSpec with Matchers with BeforeAndAfterAll:
  private val dir = Scratch.dir("diagnose-user")
  private val pgDir = Scratch.dir("diagnose-user-pg")
  private val password = java.util.UUID.randomUUID.toString
  private val keystore = dir.resolve("zoo.p12")
  // PostgreSQL once started: afterAll stops it at once, without starting it when no case did.
  @volatile private var started: Option[Served] = None
  private lazy val postgres =
    started = Some(Postgres.start(pgDir))
    started.get
  private val tlsPort = Stack.freePort()
  private lazy val app =
    val keytool = java.nio.file.Path.of(System.getProperty("java.home"), "bin", "keytool").toString
    Children.runToCompletion(Seq(keytool, "-genkeypair", "-alias", "zoo", "-keyalg", "RSA", "-keysize", "2048",
      "-validity", "2", "-dname", "CN=localhost", "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-storetype", "PKCS12",
      "-keystore", keystore.toString, "-storepass", password, "-keypass", password), 60.seconds)
      .left.foreach(e => fail(s"keytool: $e"))
    Stack(Fixtures.launch, dir).peer(Target.Zoo, Seq("--app", "spring-hikari", "--pool-size", "4", "--hold-ms", "100",
      "--tls-port", tlsPort.toString, "--jdbc-url", Postgres.jdbcUrl(postgres)),
      Seq(s"-Djavax.net.ssl.keyStore=$keystore", s"-Djavax.net.ssl.keyStorePassword=$password"))
  private def https(path: String) = s"https://127.0.0.1:$tlsPort$path"
  private lazy val body = Files.writeString(dir.resolve("order.json"), """{"item": 42, "quantity": 1}""")

  override def afterAll(): Unit =
    try
      started.foreach(Postgres.stop(pgDir, _))
      Children.stopAll()
    finally Postgres.drop(pgDir)

  /** The app's own count of requests answered, by method, route and status. */
  private def served(method: String, uri: String, status: Int): Double =
    MetricsScrape(app.url("/actuator/prometheus")).text().map(MetricsReading.lines).fold(e => fail(e), identity)
      .filter(l => l.name == "http_server_requests_seconds_count" && l.labels.get("method").contains(method) &&
        l.labels.get("uri").contains(uri) && l.labels.get("status").contains(status.toString)).map(_.value).sum

  "lab diagnose" should "load POSTs with a header and a body over HTTPS, and show the pool's meters beside its dump" in {
    val before = served("POST", "/orders", 200)
    val options = DiagnoseCommand.Options(jvm = JvmFlags(pid = Some(app.child.pid)), url = https("/orders"),
      connections = 24, duration = 8.seconds, every = 1.second,
      requests = RequestFlags(method = Some("POST"), headers = Seq("Authorization: Bearer lab-token",
        "Content-Type: application/json"), body = Some(s"@$body"), insecure = true),
      metrics = Seq(https("/actuator/prometheus")))
    val record = (DiagnoseCommand.run(options, dir.resolve("post"), _ => ())).fold(e => fail(e), identity)
    val v = Diagnosis(record)
    withClue(v.line("post")) {
      (v.cap.name, v.cap.subject) shouldBe ("connection-pool", "com.zaxxer.hikari.util.ConcurrentBag.borrow")
      val link = v.chain.find(_.startsWith("connection-pool")).get
      // The dumps' holders and waiters, and beside them the pool's own meters, scraped over HTTPS.
      link should include("of 4 connections held")
      link should include regex """\(hikaricp_connections_active [\d.]+ of 4, [\d.]+ pending\)"""
      // 4 connections each held 100 ms in PostgreSQL and more: at most 40 req/s, less on a busy machine. The pool's
      // own counter and wrk count over windows a second apart: within a quarter of each other.
      v.predicted should be <= 42.0
      v.ratio shouldBe (1.0 +- 0.25)
    }
    // Every request reached Spring as a POST with its header and body: it answered them, none with a 400.
    served("POST", "/orders", 200) - before shouldBe >= (record.load.answers.expected() * 0.95)
    served("POST", "/orders", 400) shouldBe 0.0
    record.samples.flatMap(_.metrics).size should be >= record.samples.size / 2
  }

  it should "refuse the self-signed certificate without --insecure, saying how to go on, before any load" in {
    val options = DiagnoseCommand.Options(jvm = JvmFlags(pid = Some(app.child.pid)), url = https("/hello"),
      duration = 2.seconds)
    val refused = DiagnoseCommand.run(options, dir.resolve("untrusted"), _ => ()).left.toOption.get
    refused should include(s"the certificate of https://127.0.0.1:$tlsPort is not trusted")
    refused should include("give --insecure")
    Tls.check(Requests.get(https("/hello")).copy(insecure = true)) shouldBe Right(())
  }

  "The meters' scrape" should "take the self-signed certificate only when insecure, and add the meters to a sample" in {
    MetricsScrape(https("/actuator/prometheus")).check().left.toOption.get should include("cannot scrape")
    MetricsScrape(https("/actuator/prometheus"), insecure = true).check() shouldBe Right(())
    // What --insecure takes: the certificate this run's keytool made, which the JDK's own trust refuses.
    val socket = AnyCertificate.context.getSocketFactory.createSocket("127.0.0.1", tlsPort)
      .asInstanceOf[javax.net.ssl.SSLSocket]
    try socket.startHandshake() finally socket.close()
    val sampler = MeteredSampler(ServiceSampler(app.child.pid, None),
      MetricsScrape(https("/actuator/prometheus"), insecure = true))
    sampler.sample(0).metrics.flatMap(_.meters.find(_.family == "hikaricp")).flatMap(_.size).map(_.value) shouldBe
      Some(4.0)
  }

  it should "give one verdict and each route's rate for a targets file of three routes of different cost" in {
    val targets = Files.writeString(dir.resolve("targets.txt"),
      s"""GET ${app.url("/hello")}
         |
         |GET ${app.url("/work")}
         |
         |POST ${app.url("/orders")}
         |Authorization: Bearer lab-token
         |Content-Type: application/json
         |@$body
         |""".stripMargin)
    val options = DiagnoseCommand.Options(jvm = JvmFlags(pid = Some(app.child.pid)), connections = 24, threads = 3,
      duration = 8.seconds, every = 1.second, requests = RequestFlags(targets = Some(targets)),
      metrics = Seq(app.url("/actuator/prometheus")))
    val record = (DiagnoseCommand.run(options, dir.resolve("routes"), _ => ())).fold(e => fail(e), identity)
    val v = Diagnosis(record)
    val routes = record.load.routes.map(r => r.route -> r.throughput(record.load.durationSeconds)).toMap
    withClue(s"${RouteRates.render(record.load)}\n${v.line("routes")}") {
      routes.keySet shouldBe Set("GET /hello", "GET /work", "POST /orders")
      (v.cap.name, v.cap.subject) shouldBe ("connection-pool", "com.zaxxer.hikari.util.ConcurrentBag.borrow")
      // /hello takes no connection: its clients are served many times faster than those queued for the pool.
      routes("GET /hello") should be > 5 * routes("GET /work")
      routes("GET /work") should be > 0.0
      routes("POST /orders") should be > 0.0
      routes.values.sum shouldBe (record.throughput +- 1.0)
      RouteRates.render(record.load) should include("POST /orders")
      // The pool's own counter gives the rate through it: the two routes that query, not /hello's many answers. Its
      // cap is theirs: 4 connections held 100 ms and a little more each.
      v.cap.why should include("/s through it (hikaricp_connections_usage_seconds_count)")
      v.predicted should be <= 42.0
      val queried = routes("GET /work") + routes("POST /orders")
      v.predicted shouldBe (queried +- queried * 0.25)
    }
  }

  "The lab's own users and vegeta" should "send each route of a targets file and count its answers" in {
    val requests = TargetsFile.read(dir.resolve("targets.txt")).fold(e => fail(e), identity)
    val https = Requests(requests.targets.map(r => r.copy(url = java.net.URI.create(this.https(r.target)))),
      insecure = true)
    val closed = (UsersDriver(6, 3.seconds, 5.seconds).run(https, dir.resolve("own")))
      .fold(e => fail(e), identity)
    closed.routes.map(_.route) shouldBe Seq("GET /hello", "GET /work", "POST /orders")
    closed.routes.foreach(r => withClue(r.route)(r.byClass.keySet shouldBe Set("2xx")))
    val open = (VegetaDriver(30, 3.seconds, 5.seconds).run(requests, dir.resolve("vegeta")))
      .fold(e => fail(e), identity)
    open.routes.map(_.route).toSet shouldBe Set("GET /hello", "GET /work", "POST /orders")
    // vegeta sends to the routes in turn: a third of the requests each.
    open.routes.map(_.answered).foreach(n => n.toDouble shouldBe (open.answers.answered / 3.0 +- 2.0))
  }
