package bulkhead.service.enrichment

import bulkhead.service.testkit.HttpProbe.*
import bulkhead.service.testkit.TestStub.*
import bulkhead.service.testkit.{RedisProcess, TestService}
import bulkhead.service.testkit.TestService.*
import bulkhead.stub.CustomerDirectory
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

/** The pipeline end to end: a real redis-server, the real stub over HTTP, the service over a real socket. */
@Slow
class EnrichmentPipelineSpec extends AnyFlatSpec with Matchers:

  private def pipeline[A](extra: (String, Any)*)(body: (TestService.type, RedisProcess, bulkhead.stub.RunningStub,
      bulkhead.service.RunningService) => A): A =
    RedisProcess.withRedis { redis =>
      withStub() { stub =>
        val settings = Seq[(String, Any)](
          "bulkhead.enrichment.soap.endpoint" -> endpoint(stub),
          "bulkhead.enrichment.redis.uri" -> redis.uri,
          "bulkhead.enrichment.soap.request-timeout" -> "1s",
          "bulkhead.enrichment.routees" -> 3) ++ extra
        withService(settings*)(service => body(TestService, redis, stub, service))
      }
    }

  "GET /customers/{id}" should "merge the third party's customer with the Redis profile, field by field" in
    pipeline() { (_, redis, _, s) =>
      redis.cli("HSET", "customer:7", "points", "120", "tier", "gold", "lastOrder", "2026-11-01") shouldBe "3"
      val r = get(url(s, "/customers/7"))
      r.status shouldBe 200
      val c = CustomerDirectory(100).find(7).get
      r.body shouldBe s"""{"id":7,"name":"${c.name}","segment":"${c.segment}","country":"${c.country}",""" +
        """"loyalty":{"available":true,"points":120,"tier":"gold","lastOrder":"2026-11-01"}}"""
      get(url(s, "/customers/8")).body should endWith(""""loyalty":{"available":true}}""")
    }

  it should "answer 404 for an unknown customer and 400 for a malformed id" in pipeline() { (_, _, _, s) =>
    get(url(s, "/customers/100001")).status shouldBe 404
    for bad <- Seq("abc", "-1", "0", "1234567890", "1.5", "%20") do
      withClue(s"id '$bad': ")(get(url(s, s"/customers/$bad")).status shouldBe 400)
  }

  /** The `detail` of a JSON error. */
  private def detail(body: String): String = "\"detail\":\"([^\"]*)\"".r.findFirstMatchIn(body).fold("")(_.group(1))

  /** What `bulkhead.enrichment` logs while `body` runs. */
  private def logged[A](body: => A): (A, Seq[String]) = loggedBy("bulkhead.enrichment")(body)

  private def loggedBy[A](name: String)(body: => A): (A, Seq[String]) =
    val logger = org.slf4j.LoggerFactory.getLogger(name).asInstanceOf[ch.qos.logback.classic.Logger]
    val appender = ch.qos.logback.core.read.ListAppender[ch.qos.logback.classic.spi.ILoggingEvent]()
    appender.start()
    logger.addAppender(appender)
    try
      val a = body
      (a, appender.list.toArray.map(_.asInstanceOf[ch.qos.logback.classic.spi.ILoggingEvent].getFormattedMessage).toSeq)
    finally logger.detachAppender(appender)

  it should "answer each third-party fault with its designed status and a fixed sentence, and log the fault's words" in
    pipeline("bulkhead.enrichment.soap.circuit-breaker.max-failures" -> 1000) { (_, _, stub, s) =>
      val designed = Seq("server-error" -> 502, "malformed-xml" -> 502, "xxe" -> 502, "billion-laughs" -> 502,
        "oversized" -> 502, "reset" -> 502, "no-answer" -> 504, "trickle" -> 504)
      val sentences = Set("the third party answered with a fault", "the third party's answer could not be read",
        "the third party could not be reached", "the third party did not answer in time")
      for (fault, status) <- designed do
        faults(stub, s"$fault=1")
        val (r, log) = logged(get(url(s, "/customers/3")))
        withClue(s"$fault: ${r.body}: ") {
          r.status shouldBe status
          r.body should startWith("{\"error\":")
          sentences should contain(detail(r.body))
          // The log keeps a line a second for each kind of failure: the first of each kind is in it.
          if fault == "server-error" then log.mkString should include("Internal error of the third party (injected)")
          if fault == "malformed-xml" then log.mkString should include("unreadable XML")
        }
      faults(stub, "")
      get(url(s, "/customers/3")).status shouldBe 200
    }

  it should "refuse an answer declared too long unread, without the pool's unread-entity warning" in
    pipeline("bulkhead.enrichment.soap.circuit-breaker.max-failures" -> 1000) { (_, _, stub, s) =>
      faults(stub, "oversized=1")
      // Pekko's pool warns once an answer's bytes are left unsubscribed for its subscription-timeout (1 s).
      val (statuses, log) = loggedBy(org.slf4j.Logger.ROOT_LOGGER_NAME) {
        val answers = (1 to 5).map(i => get(url(s, s"/customers/$i")).status)
        Thread.sleep(1500)
        answers
      }
      statuses shouldBe Seq.fill(5)(502)
      log.filter(_.contains("not subscribed")) shouldBe empty
      faults(stub, "")
      get(url(s, "/customers/3")).status shouldBe 200
    }

  it should "end a trickled answer at the SOAP timeout in blocking and virtual modes, freeing the thread" in {
    val modes = Seq("blocking") ++ (if Runtime.version().feature() >= 21 then Seq("virtual") else Nil)
    for mode <- modes do
      pipeline("bulkhead.enrichment.soap.mode" -> mode,
        "bulkhead.enrichment.soap.circuit-breaker.max-failures" -> 1000) { (_, _, stub, s) =>
        // The stub sends its ~400 bytes one every 100 ms: ~40 s, unless the client's deadline covers the body.
        faults(stub, "trickle=1")
        val start = System.nanoTime()
        withClue(mode)(get(url(s, "/customers/3")).status shouldBe 504)
        // Past the 1 s SOAP timeout, well before the pipeline's own ask timeout (4 s here) would answer for it.
        ((System.nanoTime() - start) / 1e9) should be < 3.0
        faults(stub, "")
        withClue(mode)(get(url(s, "/customers/3")).status shouldBe 200)
      }
  }

  it should "open the circuit after repeated failures (503 with Retry-After), then close it again" in
    pipeline("bulkhead.enrichment.soap.circuit-breaker.max-failures" -> 3,
      "bulkhead.enrichment.soap.circuit-breaker.reset-timeout" -> "1s") { (_, _, stub, s) =>
      faults(stub, "server-error=1")
      (1 to 3).map(_ => get(url(s, "/customers/5")).status) shouldBe Seq(502, 502, 502)
      val open = get(url(s, "/customers/5"))
      open.status shouldBe 503
      open.headers.get("retry-after") shouldBe Some("1")
      metric(get(url(s, "/metrics")).body, "soap_circuit_state") shouldBe Some(2.0)
      metric(get(url(s, "/metrics")).body, "soap_circuit_opened_total") shouldBe Some(1.0)
      faults(stub, "")
      eventually(tries = 100, pauseMs = 100)(get(url(s, "/customers/5")).status == 200) shouldBe true
      metric(get(url(s, "/metrics")).body, "soap_circuit_state") shouldBe Some(0.0)
    }

  it should "degrade the loyalty part while Redis is down and recover when it is back" in
    pipeline("bulkhead.enrichment.routees" -> 2, "bulkhead.enrichment.redis.timeout" -> "500ms") { (_, redis, _, s) =>
      redis.cli("HSET", "customer:9", "points", "5", "tier", "basic", "lastOrder", "2026-01-01")
      get(url(s, "/customers/9")).body should include("\"available\":true,\"points\":5")
      redis.stop()
      val degraded = get(url(s, "/customers/9"))
      degraded.status shouldBe 200
      degraded.body should include(s""""name":"${CustomerDirectory(100).find(9).get.name}"""")
      degraded.body should endWith(""""loyalty":{"available":false}}""")
      metric(get(url(s, "/metrics")).body, "enrichment_loyalty_unavailable_total").get should be >= 1.0
      val again = redis.restart()
      try
        again.cli("HSET", "customer:9", "points", "6", "tier", "basic", "lastOrder", "2026-01-02")
        eventually(tries = 150, pauseMs = 100)(get(url(s, "/customers/9")).body.contains("\"points\":6")) shouldBe
          true
      finally again.stop()
    }

  it should "open one Redis connection per routee when redis.connections = per-routee (CLIENT LIST)" in
    pipeline("bulkhead.enrichment.routees" -> 5, "bulkhead.enrichment.redis.connections" -> "per-routee") {
      (_, redis, _, s) =>
        eventually()(redis.cli("CLIENT", "LIST").linesIterator.count(_.contains("name=bulkhead-routee-")) == 5) shouldBe
          true
        metric(get(url(s, "/metrics")).body, "redis_connections_open") shouldBe Some(5.0)
        metric(get(url(s, "/metrics")).body, "enrichment_routees") shouldBe Some(5.0)
        // The router sends round robin: ten lookups reach every routee, each reading Redis on its own connection.
        (1 to 10).foreach(i => get(url(s, s"/customers/$i")).status shouldBe 200)
        redis.cli("CLIENT", "LIST").linesIterator.filter(_.contains("name=bulkhead-routee-"))
          .count(_.contains("cmd=hgetall")) shouldBe 5
    }

  it should "share one Redis connection among its routees by default" in
    pipeline("bulkhead.enrichment.routees" -> 5) { (_, redis, _, s) =>
      eventually()(redis.cli("CLIENT", "LIST").linesIterator.count(_.contains("name=bulkhead-shared")) == 1) shouldBe
        true
      redis.cli("CLIENT", "LIST").linesIterator.count(_.contains("name=bulkhead-routee-")) shouldBe 0
      metric(get(url(s, "/metrics")).body, "redis_connections_open") shouldBe Some(1.0)
      get(url(s, "/customers/1")).status shouldBe 200
    }

  it should "never run more than work-queue.max SOAP calls at once in blocking mode" in
    pipeline("bulkhead.enrichment.soap.mode" -> "blocking", "bulkhead.enrichment.soap.work-queue.core" -> 2,
      "bulkhead.enrichment.soap.work-queue.max" -> 6, "bulkhead.enrichment.soap.request-timeout" -> "5s") {
      (_, _, stub, s) =>
        latency(stub, "fixed:400")
        val calls = (1 to 15).map(i => getAsync(url(s, s"/customers/$i")))
        var peak = 0L
        while !calls.forall(_.isDone) do
          peak = peak.max(stub.metrics.inFlight)
          Thread.sleep(5)
        calls.map(_.get().status).distinct shouldBe Seq(200)
        peak shouldBe 6L
    }

  it should "refuse with 503 the blocking calls that found no thread within max-wait, and never send them" in
    pipeline("bulkhead.enrichment.soap.mode" -> "blocking", "bulkhead.enrichment.soap.work-queue.core" -> 1,
      "bulkhead.enrichment.soap.work-queue.max" -> 1, "bulkhead.enrichment.soap.admission.max-wait" -> "1s",
      "bulkhead.enrichment.soap.circuit-breaker.max-failures" -> 1000) { (_, _, stub, s) =>
      latency(stub, "fixed:700")
      val before = stub.metrics.answered
      // One thread, 0.7 s a call: the first two are answered (the second waited 0.7 s), the others refused at 1 s.
      val replies = (1 to 6).map(i => getAsync(url(s, s"/customers/$i"))).map(_.get())
      replies.map(_.status).sorted shouldBe Seq(200, 200, 503, 503, 503, 503)
      all(replies.filter(_.status == 503).map(_.headers.get("retry-after"))) shouldBe Some("1")
      // The refused calls never reached the third party.
      eventually()(stub.metrics.inFlight == 0) shouldBe true
      (stub.metrics.answered - before) shouldBe 2L
      metric(get(url(s, "/metrics")).body, "soap_circuit_opened_total") shouldBe Some(0.0)
    }

  private def blockingIoThreads(s: bulkhead.service.RunningService): Int =
    Thread.getAllStackTraces.keySet.toArray.map(_.asInstanceOf[Thread].getName)
      .count(n => n.startsWith(s.system.name + "-") && n.contains("default-blocking-io-dispatcher"))

  it should "keep Pekko's blocking-IO pool (DNS of new connections to the third party) at its fixed size" in
    pipeline("bulkhead.enrichment.soap.circuit-breaker.max-failures" -> 1000,
      "bulkhead.enrichment.soap.transport" -> "pekko") { (_, _, stub, s) =>
      // Each reset answer closes its connection: every call opens, and resolves, a new one.
      faults(stub, "reset=1")
      (1 to 40).map(i => getAsync(url(s, s"/customers/$i"))).foreach(_.get().status shouldBe 502)
      faults(stub, "")
      blockingIoThreads(s) should (be >= 1 and be <= 2)
    }

  it should "connect to the third party's IP address on its selector thread, without a name lookup" in
    pipeline("bulkhead.enrichment.soap.circuit-breaker.max-failures" -> 1000) { (_, _, stub, s) =>
      faults(stub, "reset=1")
      (1 to 40).map(i => getAsync(url(s, s"/customers/$i"))).foreach(_.get().status shouldBe 502)
      faults(stub, "")
      get(url(s, "/customers/7")).body should include("\"id\":7")
      blockingIoThreads(s) shouldBe 0
      Thread.getAllStackTraces.keySet.toArray.map(_.asInstanceOf[Thread].getName) should contain("bulkhead.soap.io-1")
    }

  it should "shed requests above max-in-flight with 503 and Retry-After at once" in
    pipeline("bulkhead.enrichment.max-in-flight" -> 4, "bulkhead.enrichment.soap.request-timeout" -> "5s") { (_, _, stub, s) =>
      latency(stub, "fixed:1500")
      val calls = (1 to 10).map(i => getAsync(url(s, s"/customers/$i")))
      val replies = calls.map(_.get())
      replies.count(_.status == 200) shouldBe 4
      replies.count(_.status == 503) shouldBe 6
      all(replies.filter(_.status == 503).map(_.headers.get("retry-after"))) shouldBe Some("1")
    }

  it should "run the blocking client on virtual threads in virtual mode (JDK 21+)" in {
    assume(Runtime.version().feature() >= 21, "virtual mode needs JDK 21+; the service refuses it at start below")
    pipeline("bulkhead.enrichment.soap.mode" -> "virtual") { (_, _, _, s) =>
      get(url(s, "/customers/11")).body should include("\"id\":11")
    }
  }
