package bulkhead.service.http

import bulkhead.service.testkit.HttpProbe.*
import bulkhead.service.testkit.RawHttp
import bulkhead.service.testkit.TestService.*
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.net.{ServerSocket, Socket}
import java.nio.charset.StandardCharsets.ISO_8859_1
import java.util.concurrent.{Executors, TimeUnit}
import scala.concurrent.duration.*
import scala.concurrent.{Await, ExecutionContext, Future}
import scala.util.Using

/** The server over real sockets: timeouts, abandoned requests, connections above the limit, slow clients. */
@Slow
class HttpServerSpec extends AnyFlatSpec with Matchers:

  private def inFlight(s: bulkhead.service.RunningService, mode: String): Double =
    metric(get(url(s, "/metrics")).body, s"""work_in_flight{mode="$mode"}""").getOrElse(-1)

  private def isJsonError(e: RawHttp.Exchange): Boolean =
    e.header("Content-Type").contains("application/json") && e.body.startsWith("{\"error\":")

  "The server" should "answer a request timeout with JSON and Retry-After on the fast path and the routing tree" in {
    // A third party that accepts and never answers, slower than the request timeout.
    Using.resource(ServerSocket(0)) { silent =>
      withService("bulkhead.service.server.request-timeout" -> "1s", "bulkhead.service.retry-after" -> "2s",
        "bulkhead.enrichment.soap.endpoint" -> s"http://127.0.0.1:${silent.getLocalPort}/soap") { s =>
        for target <- Seq("/work/pool?ms=5000", "/work/async?ms=5000", "/customers/1") do
          withClue(target) {
            val e = RawHttp.exchange(s.port, RawHttp.get(target))
            e.status shouldBe Some(503)
            e.header("Retry-After") shouldBe Some("2")
            isJsonError(e) shouldBe true
            e.seconds should be < 4.0
          }
        // The timed-out work was given up: its pool thread and its timer are free again.
        eventually()(inFlight(s, "pool") == 0 && inFlight(s, "async") == 0) shouldBe true
      }
    }
  }

  it should "give up the work of a request whose client went away" in withService() { s =>
    val modes = Seq("pool", "async") ++ (if Runtime.version().feature() >= 21 then Seq("virtual") else Nil)
    val sockets = modes.map { mode =>
      val socket = RawHttp.connect(s.port)
      socket.getOutputStream.write(RawHttp.get(s"/work/$mode?ms=60000").getBytes(ISO_8859_1))
      mode -> socket
    }
    eventually()(modes.forall(inFlight(s, _) == 1)) shouldBe true
    sockets.foreach(_._2.close())
    eventually()(modes.forall(inFlight(s, _) == 0)) shouldBe true
  }

  // The socket layer's promises on both transports (the selector threads and Pekko's, the fallback).
  for (transport, on) <- Transports do
    it should "answer 503 with Retry-After at once to a connection above max-connections, and serve again below it" +
      s" ($transport)" in
      withService(Seq("bulkhead.service.server.max-connections" -> 8, "bulkhead.service.server.listeners" -> 1) ++
        on*) { s =>
        // Keep-alive connections that took their answer and stay open hold every slot.
        val held = (1 to 8).map { _ =>
          val socket = RawHttp.connect(s.port)
          socket.getOutputStream.write(RawHttp.get("/hello").getBytes(ISO_8859_1))
          RawHttp.read(socket.getInputStream).status shouldBe Some(200)
          socket
        }
        try
          val refused = RawHttp.exchange(s.port, RawHttp.get("/hello"))
          refused.status shouldBe Some(503)
          refused.header("Retry-After") shouldBe Some("1")
          refused.header("Connection") shouldBe Some("close")
          isJsonError(refused) shouldBe true
          refused.seconds should be < 5.0
        finally held.foreach(_.close())
        eventually()(RawHttp.exchange(s.port, RawHttp.get("/hello")).status.contains(200)) shouldBe true
      }

    it should "answer 408 to a head that trickles past request-head-timeout, and close a connection that says nothing" +
      s" ($transport)" in
      withService(("bulkhead.service.server.request-head-timeout" -> "1s") +: on*) { s =>
        val trickling = RawHttp.connect(s.port)
        val silent = RawHttp.connect(s.port)
        try
          val start = System.nanoTime()
          val out = trickling.getOutputStream
          // One byte every 200 ms: each byte would restart an idle timeout.
          val answer = Future(RawHttp.read(trickling.getInputStream, start))(ExecutionContext.global)
          "GET /hello HTTP/1.1\r\nHost: x\r\nX-Slow: ".foreach { c =>
            if !answer.isCompleted then
              try
                out.write(c.toInt)
                out.flush()
                Thread.sleep(200)
              catch case _: java.io.IOException => ()
          }
          val e = Await.result(answer, 10.seconds)
          e.status shouldBe Some(408)
          isJsonError(e) shouldBe true
          e.seconds should be < 3.0
          // Nothing sent: closed without an answer, well before idle-timeout (60 s).
          val nothing = RawHttp.read(silent.getInputStream, start)
          (nothing.response, nothing.hung) shouldBe ("", false)
        finally
          trickling.close()
          silent.close()
      }

  it should "stop, loudly, when its selector thread dies of a fatal error" in {
    val config = bulkhead.service.testkit.TestService.config(Map.empty)
    val s = Await.result(bulkhead.service.ServiceApp.start(bulkhead.service.config.ServiceSettings(config), config,
      "bulkhead-test-loop-death"), 60.seconds)
    try
      s.binding.ioLoops.get.loops.head.execute(() => throw StackOverflowError("injected"))
      Await.ready(s.system.whenTerminated, 30.seconds).isCompleted shouldBe true
      org.apache.pekko.actor.CoordinatedShutdown(s.system).shutdownReason() shouldBe
        Some(bulkhead.service.dispatch.SelectorThreads.Died("bulkhead.service.server.io-1",
          "java.lang.StackOverflowError: injected"))
    finally if !s.system.whenTerminated.isCompleted then Await.ready(s.stop(), 30.seconds)
  }

  it should "answer new clients within 5 s while slow-header clients hold every slot (shipped timeouts)" in
    withService("bulkhead.service.server.max-connections" -> 16, "bulkhead.service.server.listeners" -> 1) { s =>
      val slow = (1 to 16).map(_ => RawHttp.connect(s.port, readTimeoutMs = 30000))
      val trickle = Executors.newSingleThreadScheduledExecutor()
      try
        slow.foreach(_.getOutputStream.write("GET /hello HTTP/1.1\r\n".getBytes(ISO_8859_1)))
        trickle.scheduleAtFixedRate(() => slow.foreach(c =>
          try c.getOutputStream.write('X'.toInt) catch case _: java.io.IOException => ()), 0, 1, TimeUnit.SECONDS)
        // Counted in-process: a scrape over HTTP would itself be a connection above the limit.
        eventually()(s.metrics.connections.count >= 16) shouldBe true
        val newcomer = RawHttp.exchange(s.port, RawHttp.get("/hello"))
        newcomer.status shouldBe Some(503)
        newcomer.header("Retry-After") shouldBe Some("1")
        newcomer.seconds should be < 5.0
        // Within two head deadlines (10 s each, shipped) every slow client got its 408 and the slots are free.
        val answers = slow.map(c => RawHttp.read(c.getInputStream))
        answers.flatMap(_.status).distinct shouldBe Seq(408)
        RawHttp.exchange(s.port, RawHttp.get("/hello")).status shouldBe Some(200)
      finally
        trickle.shutdownNow()
        slow.foreach(_.close())
    }
