package bulkhead.lab.load

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.io.{BufferedInputStream, ByteArrayInputStream, EOFException}

/** The lab's own client reads answers exactly: one response at a time off a kept-alive connection. */
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
