package bulkhead.lab.load

import bulkhead.lab.testkit.Scratch
import com.sun.net.httpserver.HttpServer
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.net.{InetAddress, InetSocketAddress}
import java.util.concurrent.Executors
import scala.concurrent.duration.*

/**
 * The lab's own closed loop, where wrk is not installed: users on keep-alive connections to a real server on loopback
 * (the JDK's HttpServer, 4 threads, each answer after 20 ms), every request recorded.
 */
@Slow
class UsersDriverSpec extends AnyFlatSpec with Matchers:
  private def withServer(test: Int => Unit): Unit =
    val server = HttpServer.create(InetSocketAddress(InetAddress.getLoopbackAddress, 0), 64)
    server.setExecutor(Executors.newFixedThreadPool(4))
    server.createContext("/work", exchange =>
      Thread.sleep(20)
      val body = "OK".getBytes
      exchange.sendResponseHeaders(if exchange.getRequestURI.getQuery == "fail=1" then 500 else 200, body.length)
      exchange.getResponseBody.write(body)
      exchange.close())
    server.start()
    try test(server.getAddress.getPort) finally server.stop(0)

  "UsersDriver" should "load a URL with its users for the duration and report every answer by status class" in
    withServer { port =>
      val driver = UsersDriver(8, 2.seconds, 5.seconds)
      val figures = driver.run(s"http://127.0.0.1:$port/work", Scratch.dir("users")).fold(fail(_), identity)
      figures.clients shouldBe 8
      figures.answers.byClass.keySet shouldBe Set("2xx")
      // Four server threads of 20 ms answer at most 200 a second (Little's law): more would be answers made up.
      figures.answers.answered should be > 0L
      figures.answers.answered.toDouble / figures.durationSeconds should be <= 220.0
      figures.latency.p50Ms should be >= 20.0
      driver.describe(s"http://127.0.0.1:$port/work") should include("the lab's closed-loop users: 8 connections")
    }

  it should "send the URL's query and count the server's errors as errors, not answers" in withServer { port =>
    val figures = UsersDriver(2, 1.second, 5.seconds).run(s"http://127.0.0.1:$port/work?fail=1",
      Scratch.dir("users-errors")).fold(fail(_), identity)
    figures.answers.byClass.keySet shouldBe Set("5xx")
  }

  it should "count connections refused as connect errors" in {
    val closed = java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress)
    val port = closed.getLocalPort
    closed.close()
    val figures = UsersDriver(2, 1.second, 1.second).run(s"http://127.0.0.1:$port/work",
      Scratch.dir("users-refused")).fold(fail(_), identity)
    figures.answers.answered shouldBe 0
    figures.answers.connectErrors should be > 0L
  }
