package bulkhead.service

import bulkhead.service.testkit.HttpProbe.get
import bulkhead.service.testkit.TestStub.{endpoint, withStub}
import bulkhead.service.testkit.{RedisProcess, Scratch, ServiceProcess}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.nio.file.{Files, Path}

/**
 * The service in its own JVM (so that everything it prints is seen) against a redis-server that requires a password:
 * it authenticates with the password of its environment or of a file (never of its command line, which it refuses),
 * and the password appears neither in its output nor in /metrics, also when it is wrong. Over TLS it verifies Redis'
 * certificate. /metrics can move to a listener of its own.
 */
@Slow
class SecretsSpec extends AnyFlatSpec with Matchers:
  private val password = "pw-Zq7-never-logged"
  private val tier = "tier-only-in-redis"

  /** The first body within `seconds` that satisfies `ok`, else the last one. */
  private def answerWithin(url: String, seconds: Int)(ok: String => Boolean): String =
    val deadline = System.nanoTime() + seconds * 1_000_000_000L
    var body = get(url).body
    while !ok(body) && System.nanoTime() < deadline do
      Thread.sleep(200)
      body = get(url).body
    body

  private def withPasswordRedis[A](body: RedisProcess => A): A =
    RedisProcess.withRedis("--requirepass", password) { redis =>
      redis.cli("--no-auth-warning", "-a", password, "HSET", "customer:7", "points", "70", "tier", tier, "lastOrder",
        "2026-07-07") shouldBe "3"
      body(redis)
    }

  private def serviceArgs(soap: String, redisUri: String) = Seq("--soap-endpoint", soap, "--redis-uri", redisUri)

  /** The password in the service's environment, where it reads it from. */
  private def passwordEnv(secret: String) = Map("BULKHEAD_REDIS_PASSWORD" -> secret)

  private def passwordFile(secret: String): Path =
    val file = Scratch.file("redis-password", "")
    Files.writeString(file, secret + "\n")
    file

  "A Redis password" should
    "authenticate, enrich the answer, and keep the password out of output and metrics" in
    withPasswordRedis { redis =>
      withStub("fixed:10") { stub =>
        val service = ServiceProcess.started(serviceArgs(endpoint(stub), s"redis://127.0.0.1:${redis.port}"),
          env = passwordEnv(password))
        try
          answerWithin(service.url("/customers/7"), 15)(_.contains(tier)) should include(tier)
          get(service.url("/metrics")).body should not include password
        finally service.stop()
        service.output should not include password
      }
    }

  it should "degrade the answer when the password (from --redis-password-file) is wrong, still without printing it" in
    withPasswordRedis { redis =>
    val wrong = "wrong-Xy9-secret"
    withStub("fixed:10") { stub =>
      val service = ServiceProcess.started(serviceArgs(endpoint(stub), s"redis://127.0.0.1:${redis.port}") ++
        Seq("--redis-password-file", passwordFile(wrong).toString))
      try
        get(service.url("/customers/7")).body should include(""""loyalty":{"available":false}""")
        get(service.url("/metrics")).body should not include wrong
      finally service.stop()
      service.output should (not include wrong and not include password)
    }
  }

  it should "be refused on the command line, where every user of the machine could read it, without being printed" in {
    val service = ServiceProcess.start("refused", Scratch.dir("bulkhead-service"),
      serviceArgs("http://127.0.0.1:1/soap", s"redis://:$password@127.0.0.1:6379"))
    val deadline = System.nanoTime() + 60_000_000_000L
    while service.isAlive && System.nanoTime() < deadline do Thread.sleep(100)
    service.isAlive shouldBe false
    service.output should include("--redis-password-file")
    service.output should not include password
  }

  "A rediss:// URI" should
    "reach Redis over TLS with the certificate verified, and fail closed without trusting it" in {
    val tls = Scratch.dir("bulkhead-tls")
    def run(cmd: String*) =
      val p = ProcessBuilder(cmd*).directory(tls.toFile).redirectErrorStream(true).start()
      val out = String(p.getInputStream.readAllBytes())
      withClue(s"${cmd.mkString(" ")}: $out (openssl and keytool are needed: apt-get install openssl)") {
        p.waitFor() shouldBe 0
      }
    run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "key.pem", "-out", "cert.pem", "-days",
      "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1")
    val keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString
    run(keytool, "-importcert", "-noprompt", "-alias", "redis", "-file", "cert.pem", "-keystore", "trust.p12",
      "-storetype", "PKCS12", "-storepass", "changeit")
    val port = RedisProcess.freePort()
    val secure = RedisProcess.start(port, Seq("--port", "0", "--tls-port", port.toString, "--tls-cert-file",
      tls.resolve("cert.pem").toString, "--tls-key-file", tls.resolve("key.pem").toString, "--tls-ca-cert-file",
      tls.resolve("cert.pem").toString, "--tls-auth-clients", "no", "--requirepass", password))
    try
      withStub("fixed:10") { stub =>
        val args = serviceArgs(endpoint(stub), s"rediss://127.0.0.1:$port")
        val trusted = ServiceProcess.started(args, Seq(s"-Djavax.net.ssl.trustStore=${tls.resolve("trust.p12")}",
          "-Djavax.net.ssl.trustStorePassword=changeit"), passwordEnv(password))
        try
          // The service opens its Redis connections in the background; the TLS handshake may take a moment.
          val body = answerWithin(trusted.url("/customers/7"), 15)(b => !b.contains(""""available":false"""))
          body should include(""""loyalty":{"available":true""")
        finally trusted.stop()
        trusted.output should not include password
        ServiceProcess.withService(args, env = passwordEnv(password)) { untrusting =>
          // Given the time the trusted one had to connect, it still cannot: the certificate is not trusted.
          Thread.sleep(3000)
          get(untrusting.url("/customers/7")).body should include(""""loyalty":{"available":false}""")
        }
      }
    finally secure.stop()
  }

  "/metrics on its own listener" should "answer there and not on the service's port" in withStub("fixed:10") { stub =>
    ServiceProcess.withService(serviceArgs(endpoint(stub), "redis://127.0.0.1:1") :+ "--metrics-port" :+ "0") { s =>
      val metricsPort = """metrics at http://127\.0\.0\.1:(\d+)/metrics""".r.findFirstMatchIn(s.output)
        .map(_.group(1).toInt).getOrElse(fail(s"the service did not say where /metrics is: ${s.output}"))
      s.port should not be Some(metricsPort)
      get(s"http://127.0.0.1:$metricsPort/metrics").body should include("soap_circuit_state")
      get(s.url("/metrics")).status shouldBe 404
      get(s.url("/hello")).body shouldBe "OK"
    }
  }
