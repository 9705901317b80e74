package bulkhead.lab.load

import bulkhead.lab.model.Answers
import bulkhead.lab.record.{RequestLog, RequestOutcome}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.io.{BufferedInputStream, BufferedReader, ByteArrayInputStream, EOFException, InputStreamReader}
import java.net.{InetAddress, ServerSocket}
import java.util.concurrent.{CountDownLatch, TimeUnit}
import scala.concurrent.duration.*
import scala.util.Using

/** The lab's own client reads answers exactly: one response at a time off a kept-alive connection. */
@Slow
class ClosedLoopUsersSpec extends AnyFlatSpec with Matchers:
  private def stream(s: String) = BufferedInputStream(ByteArrayInputStream(s.getBytes("US-ASCII")))

  "readResponse" should "read two pipelined answers, Content-Length then chunked, and the headers that matter" in {
    val in = stream(
      "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 2\r\nContent-Length: 5\r\n\r\nbusy!" +
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n")
    ClosedLoopUsers.readResponse(in) shouldBe ClosedLoopUsers.Response(503, Some("2"), close = false)
    ClosedLoopUsers.readResponse(in) shouldBe ClosedLoopUsers.Response(200, None, close = true)
    in.read() shouldBe -1
  }

  it should "fail on a connection closed before or inside an answer, and on a line that is not a status line" in {
    an[EOFException] should be thrownBy ClosedLoopUsers.readResponse(stream(""))
    an[EOFException] should be thrownBy ClosedLoopUsers.readResponse(stream("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc"))
    a[java.io.IOException] should be thrownBy ClosedLoopUsers.readResponse(stream("SSH-2.0-OpenSSH\r\n\r\n"))
  }

  /**
   * A loopback server that acts on each request's path: `/answer` is answered 200, `/close` closed unanswered, `/hold`
   * held unanswered (`holding` counts the held ones down).
   */
  private def withServer[A](holding: CountDownLatch)(body: Int => A): A =
    Using.resource(ServerSocket(0, 50, InetAddress.getLoopbackAddress)) { server =>
      ClosedLoopUsers.startThread("users-spec-server", () =>
        try
          while true do
            val s = server.accept()
            ClosedLoopUsers.startThread("users-spec-connection", () =>
              try
                val in = BufferedReader(InputStreamReader(s.getInputStream, "US-ASCII"))
                val path = Option(in.readLine()).flatMap(_.split(' ').lift(1)).getOrElse("")
                while Option(in.readLine()).exists(_.nonEmpty) do ()
                path match
                  case "/answer" => s.getOutputStream.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK".getBytes)
                  case "/close" => s.close()
                  case _ => holding.countDown()
              catch case _: java.io.IOException => ())
        catch case _: java.io.IOException => ())
      body(server.getLocalPort)
    }

  /** One user's one request: what the log recorded for it. */
  private def oneRequest(port: Int, path: String, readTimeout: FiniteDuration = 5.seconds): Seq[RequestOutcome] =
    val log = RequestLog()
    val users = ClosedLoopUsers.start(UserGroup("one", 1, port, _ => path, oneShot = true, readTimeout = readTimeout),
      log)
    val deadline = System.nanoTime() + 10.seconds.toNanos
    while !users.finished && System.nanoTime() < deadline do Thread.sleep(20)
    log.all.map(_.outcome)

  "A user group" should "record each request's status, or why none came: closed, timed out, no connection" in {
    withServer(CountDownLatch(1)) { port =>
      oneRequest(port, "/answer") shouldBe Seq(RequestOutcome.Status(200))
      oneRequest(port, "/close") shouldBe Seq(RequestOutcome.Closed)
      oneRequest(port, "/hold", readTimeout = 300.millis) shouldBe Seq(RequestOutcome.Timeout)
    }
    val closedPort = Using.resource(ServerSocket(0, 1, InetAddress.getLoopbackAddress))(_.getLocalPort)
    oneRequest(closedPort, "/answer") shouldBe Seq(RequestOutcome.Connect)
  }

  it should "record the requests it was waiting on as abandoned when it closes its connections" in {
    val holding = CountDownLatch(2)
    withServer(holding) { port =>
      val log = RequestLog()
      val users = ClosedLoopUsers.start(UserGroup("held", 2, port, _ => "/hold"), log)
      holding.await(5, TimeUnit.SECONDS) shouldBe true
      users.abandon() shouldBe true
      log.all.map(_.outcome) shouldBe Seq.fill(2)(RequestOutcome.Abandoned)
    }
  }

  "The closed-loop figures" should "be a load driver's: answers by class and second, the unanswered counted in theirs" in {
    withServer(CountDownLatch(0)) { port =>
      val log = RequestLog()
      def group(name: String, users: Int, path: String) =
        ClosedLoopUsers.start(UserGroup(name, users, port, _ => path, oneShot = true), log)
      val groups = Seq(group("answered", 3, "/answer"), group("closed", 2, "/close"))
      val deadline = System.nanoTime() + 10.seconds.toNanos
      while !groups.forall(_.finished) && System.nanoTime() < deadline do Thread.sleep(20)
      val end = log.all.map(_.endSecond).max
      val f = ClosedLoopUsers.figures(log.all, 5, 0.0, end + 0.001, "5 users")
      f.answers.byClass shouldBe Map("2xx" -> 3L)
      (f.answers.readErrors, f.answers.connectErrors, f.answers.timeouts) shouldBe (2L, 0L, 0L)
      f.latency.count shouldBe 3
      f.latency.maxMs shouldBe (log.all.filter(_.answered).map(_.latencyMs).max +- 0.01)
      f.seconds.map(_.byClass.getOrElse("2xx", 0L)).sum shouldBe 3
      f.seconds.flatMap(_.unanswered).sum shouldBe 2
      f.seconds.map(_.second) shouldBe (0 to end.toInt)
      ClosedLoopUsers.figures(log.all, 5, end + 0.001, end + 1, "after").answers shouldBe Answers.Empty
    }
  }
