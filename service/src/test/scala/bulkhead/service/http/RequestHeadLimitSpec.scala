package bulkhead.service.http

import bulkhead.service.testkit.RawHttp
import bulkhead.service.testkit.TestService.*
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.charset.StandardCharsets.ISO_8859_1

/** max-head-bytes over real sockets, with the shipped default (64 KiB): each header within Pekko's limits. */
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
