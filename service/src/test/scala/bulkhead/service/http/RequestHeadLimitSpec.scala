package bulkhead.service.http

import bulkhead.service.testkit.RawHttp
import bulkhead.service.testkit.TestService.*
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.io.IOException
import java.net.Socket
import java.nio.charset.StandardCharsets.ISO_8859_1
import scala.concurrent.duration.*

/**
 * max-head-bytes over real sockets, with the shipped default (64 KiB): each header within Pekko's limits; and
 * max-head-bytes-in-progress, the heads of every connection together, set small.
 */
@Slow
class RequestHeadLimitSpec extends AnyFlatSpec with Matchers:

  /** `count` headers of `size` bytes each: under Pekko's own limits (64 headers, 8 KiB a value) one by one. */
  private def headers(count: Int, size: Int): String =
    (1 to count).map(i => s"X-Junk-$i: ${"a" * size}\r\n").mkString

  "A request head" should "get 431 with the JSON error and a closed connection past max-head-bytes, while another " +
    "connection is served" in withService() { s =>
      val big = RawHttp.connect(s.port)
      try
        // 60,000 bytes, then 8,000 more in one write: the limit is crossed by bytes the server reads at once, so
        // it closes with nothing of ours unread (a FIN, not a reset that could drop its answer).
        val out = big.getOutputStream
        out.write(s"GET /hello HTTP/1.1\r\nHost: localhost\r\n${headers(15, 4000)}".getBytes(ISO_8859_1))
        out.flush()
        Thread.sleep(200)
        out.write(headers(2, 4000).getBytes(ISO_8859_1))
        out.flush()
        val e = RawHttp.read(big.getInputStream)
        e.status shouldBe Some(431)
        e.header("Connection") shouldBe Some("close")
        e.header("Content-Type").exists(_.startsWith("application/json")) shouldBe true
        e.body should include("max-head-bytes")
        big.getInputStream.read() shouldBe -1
      finally big.close()

      RawHttp.exchange(s.port, RawHttp.get("/hello")).status shouldBe Some(200)
    }

  it should "be served below max-head-bytes, and its limit counted anew for each request of a connection" in
    withService() { s =>
      val socket = RawHttp.connect(s.port)
      try
        // 2 x 56 KB on one keep-alive connection: 112 KB in all, each head under 64 KiB.
        for _ <- 1 to 2 do
          val head = RawHttp.get("/hello", s"Host: localhost\r\n${headers(14, 4000)}")
          socket.getOutputStream.write(head.getBytes(ISO_8859_1))
          socket.getOutputStream.flush()
          RawHttp.read(socket.getInputStream).status shouldBe Some(200)
      finally socket.close()
    }

  /** An unfinished head of exactly `bytes` (no blank line): GET /hello padded with headers of at most 4,000 bytes. */
  private def unfinishedHead(bytes: Int): Array[Byte] =
    val start = "GET /hello HTTP/1.1\r\nHost: localhost\r\n"
    val full = (bytes - start.length) / 4014
    val rest = bytes - start.length - full * 4014 - "X-Rest: \r\n".length
    (start + (1 to full).map(i => f"X-Pad-$i%04d: ${"a" * 4000}\r\n").mkString + s"X-Rest: ${"a" * rest}\r\n")
      .getBytes(ISO_8859_1)

  private def inProgress(s: bulkhead.service.RunningService): Long =
    s.metrics.registry.find("http.server.head.bytes.in.progress").gauge().value().toLong

  /** Polls `condition` every 50 ms for up to `within`. */
  private def eventually(within: FiniteDuration)(condition: => Boolean): Boolean =
    val end = within.fromNow
    while !condition && end.hasTimeLeft() do Thread.sleep(50)
    condition

  "The heads in progress of every connection" should "get 503 with Retry-After and the JSON error past " +
    "max-head-bytes-in-progress, while the heads within it wait, /health answers, and the budget comes back to 0 " +
    "once their connections end" in withService("bulkhead.service.server.max-head-bytes-in-progress" -> "1MiB",
      "bulkhead.service.server.request-head-timeout" -> "60s") { s =>
    val head = unfinishedHead(64_000)
    head.length shouldBe 64_000
    val budget = 1L << 20
    // 40 heads of 64,000 bytes against 1 MiB: 16 fit (1,024,000 bytes), at least 24 do not.
    val sockets = (1 to 40).map { _ =>
      val socket = RawHttp.connect(s.port)
      val written =
        try
          socket.getOutputStream.write(head)
          socket.getOutputStream.flush()
          true
        catch case _: IOException => false
      socket -> written
    }
    def answered(socket: Socket, written: Boolean) = !written || socket.getInputStream.available() > 0
    try
      // Settled: every head is either answered or wholly counted (its 64,000 bytes read and taken).
      val settled = eventually(20.seconds) {
        val waiting = sockets.count((socket, written) => !answered(socket, written))
        inProgress(s) == waiting * 64_000L
      }
      val (refused, waiting) = sockets.partition(answered)
      withClue(s"in progress ${inProgress(s)}, refused ${refused.size}: ") {
        settled shouldBe true
        refused.size should be >= 24
        waiting should not be empty
        inProgress(s) should (be > 0L and be <= budget)
      }
      refused.foreach { (socket, _) =>
        val e = RawHttp.read(socket.getInputStream)
        e.status shouldBe Some(503)
        e.header("Retry-After") shouldBe Some("1")
        e.header("Connection") shouldBe Some("close")
        e.header("Content-Type").exists(_.startsWith("application/json")) shouldBe true
        e.body should include("max-head-bytes-in-progress")
      }
      RawHttp.exchange(s.port, RawHttp.get("/health")).status shouldBe Some(200)
      // Half the heads end and are served; the other half are abandoned by their clients.
      val (finished, abandoned) = waiting.splitAt(waiting.size / 2)
      finished.foreach { (socket, _) =>
        socket.getOutputStream.write("\r\n".getBytes(ISO_8859_1))
        socket.getOutputStream.flush()
        RawHttp.read(socket.getInputStream).status shouldBe Some(200)
      }
      abandoned.foreach((socket, _) => socket.close())
      withClue(s"in progress ${inProgress(s)}: ")(eventually(10.seconds)(inProgress(s) == 0) shouldBe true)
    finally sockets.foreach((socket, _) => socket.close())

    // The budget is whole again: 16 heads of 64,000 bytes wait at once, none refused, and are served.
    val again = (1 to 16).map { _ =>
      val socket = RawHttp.connect(s.port)
      socket.getOutputStream.write(head)
      socket.getOutputStream.flush()
      socket
    }
    try
      withClue(s"in progress ${inProgress(s)}: ")(eventually(20.seconds)(inProgress(s) == 16 * 64_000L) shouldBe true)
      RawHttp.exchange(s.port, RawHttp.get("/health")).status shouldBe Some(200)
      again.foreach { socket =>
        socket.getOutputStream.write("\r\n".getBytes(ISO_8859_1))
        socket.getOutputStream.flush()
        RawHttp.read(socket.getInputStream).status shouldBe Some(200)
      }
      inProgress(s) shouldBe 0
    finally again.foreach(_.close())
  }
