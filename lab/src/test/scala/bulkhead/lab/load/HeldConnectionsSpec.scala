package bulkhead.lab.load

import bulkhead.lab.record.{RequestLog, RequestOutcome}

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.net.{ServerSocket, Socket}
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.atomic.AtomicInteger
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*
import scala.util.Using

@Slow
class HeldConnectionsSpec extends AnyFlatSpec with Matchers:
  private val received = java.util.concurrent.ConcurrentHashMap[Socket, StringBuffer]()

  /**
   * A loopback server: answers each connection's first request 200, or 503 and closes from the `refuseAfter`-th; what
   * each connection sent before its head ended is kept, by connection.
   */
  private def withServer[A](refuseAfter: Int)(body: (Int, ConcurrentLinkedQueue[Socket]) => A): A =
    Using.resource(ServerSocket(0, 1000)) { server =>
      val accepted = ConcurrentLinkedQueue[Socket]()
      received.clear()
      val count = AtomicInteger()
      val acceptor = Thread(() =>
        try
          while true do
            val s = server.accept()
            accepted.add(s)
            val n = count.incrementAndGet()
            ClosedLoopUsers.startThread("held-spec-server", () =>
              try
                val in = s.getInputStream
                val seen = StringBuffer()
                received.put(s, seen)
                var c = in.read()
                while c >= 0 && !seen.toString.contains("\r\n\r\n") do
                  seen.append(c.toChar)
                  if !seen.toString.contains("\r\n\r\n") then c = in.read()
                if seen.toString.contains("\r\n\r\n") then
                  val answer = if n > refuseAfter then "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\n" +
                      "Connection: close\r\nContent-Length: 0\r\n\r\n"
                    else "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK"
                  s.getOutputStream.write(answer.getBytes("US-ASCII"))
                  if n > refuseAfter then s.close()
              catch case _: java.io.IOException => ())
        catch case _: java.io.IOException => ())
      acceptor.setDaemon(true)
      acceptor.start()
      body(server.getLocalPort, accepted)
    }

  "HeldConnections" should "hold idle connections after their answer, record each answer, and release refused ones" in
    withServer(refuseAfter = 40) { (port, accepted) =>
      val log = RequestLog()
      val held = HeldConnections.open("held", 50, port, Holding.Idle("/hello"), log)
      try
        held.held shouldBe 40
        log.all.map(_.outcome).groupMapReduce(identity)(_ => 1)(_ + _) shouldBe
          Map(RequestOutcome.Status(200) -> 40, RequestOutcome.Status(503) -> 10)
        log.all.filter(_.outcome == RequestOutcome.Status(503)).flatMap(_.retryAfter).distinct shouldBe Seq("1")
      finally held.close()
      held.held shouldBe 0
      // Closed by the lab: the server reads the end of each held connection.
      accepted.asScala.filterNot(_.isClosed).foreach(s => s.getInputStream.read() shouldBe -1)
    }

  it should "keep slow-header connections sending a header byte at a time, without a request in the log" in
    withServer(refuseAfter = Int.MaxValue) { (port, accepted) =>
      val log = RequestLog()
      val held = HeldConnections.open("slow", 10, port, Holding.SlowHeader(100.millis), log)
      try
        held.held shouldBe 10
        log.all shouldBe empty
        val deadline = System.nanoTime() + 5.seconds.toNanos
        def trickled = received.values.asScala.map(_.toString).filter(_.contains("X-Slow: aaa"))
        while trickled.size < 10 && System.nanoTime() < deadline do Thread.sleep(50)
        trickled.size shouldBe 10
      finally held.close()
    }
