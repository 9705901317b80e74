package bulkhead.lab.security

import bulkhead.lab.SeedRedis
import bulkhead.lab.process.{Children, Stack}
import bulkhead.lab.testkit.Fixtures
import org.scalatest.BeforeAndAfterAll
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.{Files, Path}

/**
 * The service in its own JVM against a redis-server that requires a password: it authenticates with the password of
 * its environment or of a file (never of its command line, which it refuses), and the password appears neither in its
 * log nor in /metrics, also when it is wrong. /metrics can be moved to a listener of its own.
 */
class SecretsSpec extends AnyFlatSpec with Matchers with BeforeAndAfterAll:
  private val password = "pw-Zq7-never-logged"
  private val dir = Files.createTempDirectory("lab-secrets")
  private val stack = Stack(Fixtures.launch, dir)
  private lazy val redis = stack.redis(extra = Seq("--requirepass", password))
  private lazy val stub = stack.stub(Seq("--latency", "fixed:10", "--customers", "100"))

  override def afterAll(): Unit = Children.stopAll()

  /** The first answer within `seconds` that satisfies `ok`, else the last one. */
  private def answerWithin(url: String, seconds: Int)(ok: String => Boolean): String =
    val deadline = System.nanoTime() + seconds * 1_000_000_000L
    var body = Stack.get(url).fold(e => fail(e), identity)
    while !ok(body) && System.nanoTime() < deadline do
      Thread.sleep(200)
      body = Stack.get(url).fold(e => fail(e), identity)
    body

  private def passwordFile(secret: String): Path =
    val file = Files.createTempFile(dir, "redis-password", "")
    Files.writeString(file, secret)
    file

  /** The service on `uri`, its password in `BULKHEAD_REDIS_PASSWORD` when given. */
  private def service(uri: String, extra: Seq[String] = Nil, envPassword: Option[String] = Some(password)) =
    stack.service(Seq("--soap-endpoint", stub.url("/soap"), "--redis-uri", uri) ++ extra, heap = "-Xmx256m",
      env = envPassword.map("BULKHEAD_REDIS_PASSWORD" -> _).toMap)

  "A Redis password" should "authenticate, enrich the answer, and keep the password out of logs and metrics" in {
    SeedRedis.load(s"redis://:$password@127.0.0.1:${redis.port}", 100)
    val s = service(s"redis://127.0.0.1:${redis.port}")
    try
      val tier = SeedRedis.profile(7)("tier")
      val body = answerWithin(s.url("/customers/7"), 15)(_.contains(tier))
      body should include(""""loyalty"""")
      body should include(tier)
      Stack.get(s.url("/metrics")).fold(e => fail(e), identity) should not include password
    finally s.child.stop()
    Files.readString(s.child.log) should not include password
  }

  it should "degrade the answer when the password (from --redis-password-file) is wrong, still without printing it" in {
    val wrong = "wrong-Xy9-secret"
    val s = service(s"redis://127.0.0.1:${redis.port}",
      Seq("--redis-password-file", passwordFile(wrong).toString), envPassword = None)
    try
      val body = Stack.get(s.url("/customers/7")).fold(e => fail(e), identity)
      body should include(""""loyalty":{"available":false}""")
      Stack.get(s.url("/metrics")).fold(e => fail(e), identity) should not include wrong
    finally s.child.stop()
    val log = Files.readString(s.child.log)
    log should not include wrong
    log should not include password
  }

  it should "be refused on the command line, where every user of the machine could read it, without being printed" in {
    val e = intercept[IllegalStateException](service(s"redis://:$password@127.0.0.1:${redis.port}", envPassword = None))
    e.getMessage should include("--redis-password-file")
    e.getMessage should not include password
  }

  "A rediss:// URI" should "reach Redis over TLS with the certificate verified, and fail closed without trusting it" in {
    val tls = Files.createTempDirectory("lab-tls")
    def run(cmd: String*) =
      val p = ProcessBuilder(cmd*).directory(tls.toFile).redirectErrorStream(true).start()
      val out = String(p.getInputStream.readAllBytes())
      withClue(s"${cmd.mkString(" ")}: $out (openssl and keytool are needed: apt-get install openssl)") {
        p.waitFor() shouldBe 0
      }
    run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "key.pem", "-out", "cert.pem", "-days",
      "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1")
    val keytool = Path.of(Fixtures.launch.java).resolveSibling("keytool").toString
    run(keytool, "-importcert", "-noprompt", "-alias", "redis", "-file", "cert.pem", "-keystore", "trust.p12",
      "-storetype", "PKCS12", "-storepass", "changeit")
    val port = Stack.freePort()
    val secure = stack.redis(port, Seq("--tls-port", port.toString, "--port", "0", "--tls-cert-file",
      tls.resolve("cert.pem").toString, "--tls-key-file", tls.resolve("key.pem").toString, "--tls-ca-cert-file",
      tls.resolve("cert.pem").toString, "--tls-auth-clients", "no", "--requirepass", password))
    val uri = s"rediss://127.0.0.1:$port"
    val trusted = stack.service(Seq("--soap-endpoint", stub.url("/soap"), "--redis-uri", uri,
      "--redis-password-file", passwordFile(password).toString), heap = "-Xmx256m",
      jvmExtra = Seq(s"-Djavax.net.ssl.trustStore=${tls.resolve("trust.p12")}",
        "-Djavax.net.ssl.trustStorePassword=changeit"))
    try
      // The service opens its Redis connections in the background; the TLS handshake may take a moment after start.
      val body = answerWithin(trusted.url("/customers/7"), 15)(b => !b.contains(""""available":false"""))
      body should include(""""loyalty"""")
      body should not include (""""available":false""")
    finally trusted.child.stop()
    Files.readString(trusted.child.log) should not include password
    val untrusting = service(uri)
    try
      // Given the same time the trusted one had to connect, it still cannot: the certificate is not trusted.
      Thread.sleep(3000)
      Stack.get(untrusting.url("/customers/7")).fold(e => fail(e), identity) should include(""""available":false""")
    finally untrusting.child.stop()
    secure.child.stop()
  }

  "/metrics on its own listener" should "answer there and not on the service's port" in {
    val s = service(s"redis://127.0.0.1:${redis.port}", Seq("--metrics-port", "0"))
    try
      val log = Files.readString(s.child.log)
      val metricsPort = """metrics at http://127\.0\.0\.1:(\d+)/metrics""".r.findFirstMatchIn(log).map(_.group(1).toInt)
        .getOrElse(fail(s"the service did not log where /metrics is: $log"))
      metricsPort should not be s.port
      Stack.get(s"http://127.0.0.1:$metricsPort/metrics").fold(e => fail(e), identity) should include(
        "soap_circuit_state")
      Stack.get(s.url("/metrics")) shouldBe Left(s"HTTP 404 from ${s.url("/metrics")}")
      Stack.get(s.url("/hello")) shouldBe Right("OK")
    finally s.child.stop()
  }
