package bulkhead.service.http

import bulkhead.service.testkit.HttpProbe.*
import bulkhead.service.testkit.TestService.*
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.io.{ByteArrayOutputStream, InputStream}
import java.net.{InetSocketAddress, Socket, SocketTimeoutException}
import java.nio.charset.StandardCharsets.ISO_8859_1

/** A corpus of bad requests sent over raw sockets: each gets a 4xx JSON error, never a 5xx or a stack trace. */
class BadInputSpec extends AnyFlatSpec with Matchers:

  /** A raw exchange: what came back, and whether the server hung (nothing and no close in 10 s). */
  private final case class Exchange(response: String, hung: Boolean, reset: Boolean = false)

  /** Sends raw bytes, reads until the server closes or a full response with Content-Length has arrived. */
  private def exchange(port: Int, raw: String): String = exchangeRaw(port, raw).response

  private def exchangeRaw(port: Int, raw: String): Exchange =
    val socket = Socket()
    socket.connect(InetSocketAddress("127.0.0.1", port), 5000)
    socket.setSoTimeout(10000)
    try
      socket.getOutputStream.write(raw.getBytes(ISO_8859_1))
      socket.getOutputStream.flush()
      readResponse(socket.getInputStream)
    finally socket.close()

  private def readResponse(in: InputStream): Exchange =
    val out = ByteArrayOutputStream()
    val buf = new Array[Byte](8192)
    var done = false
    var hung = false
    var reset = false
    while !done do
      val n = try in.read(buf) catch
        case _: SocketTimeoutException =>
          hung = out.size == 0
          -1
        // The server may close with our unread bytes still queued (RST): fine once its answer has arrived.
        case _: java.net.SocketException if out.size > 0 => -1
        case _: java.net.SocketException =>
          reset = true
          -1
      if n < 0 then done = true
      else
        out.write(buf, 0, n)
        val text = out.toString(ISO_8859_1)
        val head = text.indexOf("\r\n\r\n")
        if head >= 0 then
          val length = "(?i)content-length: (\\d+)".r.findFirstMatchIn(text.take(head)).map(_.group(1).toInt)
          if length.exists(l => out.size >= head + 4 + l) then done = true
    Exchange(out.toString(ISO_8859_1), hung, reset)

  private def rawGet(target: String, headers: String = "Host: localhost\r\n") = s"GET $target HTTP/1.1\r\n$headers\r\n"

  /** The corpus: (what it is, raw request). */
  private val corpus: Seq[(String, String)] =
    val ids = Seq("", "-1", "0", "-0", "00", "1.0", "1e3", "0x10", "abc", "1a", "a1", " 1", "1%20", "%3x", "9" * 10,
      "9" * 40, "99999999999999999999999", "%00", "%FF", "%2D1", "%C3%A9", "%E2%82%AC", "%F0%9F%98%80", "..", "%2e%2e",
      "1%2F2", "%2F", "1;drop", "1'", "1\"", "<script>", "%3Cscript%3E", "1,2", "1+1", "+1", "NaN", "null", "true",
      "[1]", "%7B%7D", "1%0A", "%0D%0A", "\u0661", "%2B", "1%00", "0001x", "%EF%BC%91", "%E2%80%8B1", "1%E2%80%8B")
      .map(id => s"id '$id'" -> rawGet(s"/customers/${id.replace(" ", "%20")}"))
    val modes = Seq("", "DEFAULT", "Pool", "turbo", "pool2", "%70oo", "async%00", "virtual%20", "..", "%2F")
      .map(m => s"mode '$m'" -> rawGet(s"/work/$m"))
    val millis = for
      mode <- Seq("default", "pool", "virtual", "async")
      ms <- Seq("-1", "60001", "abc", "", "1.5", "1e3", "99999999999", "0x10", "%00", "1,2", " ", "%2B1", "NaN")
    yield s"$mode ms '$ms'" -> rawGet(s"/work/$mode?ms=${ms.replace(" ", "%20")}")
    val idsAsModes = Seq("-1", "abc", "%00", "%C3%A9", "%F0%9F%98%80", "1%2F2", "<script>", "%3Cscript%3E", "null",
      "%E2%82%AC", "9" * 40, "1;drop", "[1]", "%7B%7D").map(m => s"mode '$m'" -> rawGet(s"/work/$m"))
    val paths = Seq("/", "/hello/", "/hello/x", "/HELLO", "/work", "/work/", "/work/pool/extra", "/customers",
      "/customers/1/2", "/metrics/x", "/health/x", "/%2e%2e/etc/passwd", "/..%2F..%2Fetc%2Fpasswd", "/%00",
      "/%ZZ", "/%", "/%E0%A4%A", "//", "/customers//1", "/work//pool", "/a" * 20)
      .map(p => s"path '${p.take(40)}'" -> rawGet(p))
    val methods = for
      method <- Seq("POST", "PUT", "DELETE", "PATCH")
      path <- Seq("/hello", "/customers/1", "/work/pool", "/metrics", "/health", "/work/async?ms=1", "/customers/abc",
        "/nothing", "/work/turbo")
    yield s"$method $path" -> s"$method $path HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n\r\n{}"
    val headers = Seq(
      "oversized header" -> rawGet("/hello", s"Host: localhost\r\nX-Big: ${"a" * 20000}\r\n"),
      "many headers" -> rawGet("/hello", "Host: localhost\r\n" + (1 to 200).map(i => s"X-H$i: v\r\n").mkString),
      "duplicated Host" -> rawGet("/hello", "Host: a\r\nHost: b\r\n"),
      "no Host in HTTP/1.1" -> "GET /hello HTTP/1.1\r\n\r\n",
      "header without colon" -> rawGet("/hello", "Host: localhost\r\nBroken header line\r\n"),
      "header name with space" -> rawGet("/hello", "Host: localhost\r\nBad Name: v\r\n"),
      "bad Content-Length" -> rawGet("/hello", "Host: localhost\r\nContent-Length: abc\r\n"),
      "negative Content-Length" -> rawGet("/hello", "Host: localhost\r\nContent-Length: -5\r\n"),
      "two Content-Lengths" -> rawGet("/hello", "Host: localhost\r\nContent-Length: 1\r\nContent-Length: 2\r\n"),
      "bad Transfer-Encoding" -> rawGet("/hello", "Host: localhost\r\nTransfer-Encoding: gzip, bogus\r\n"),
      "bad chunk size" -> "POST /hello HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nx\r\n0\r\n\r\n",
      "oversized URI" -> rawGet("/customers/" + "1" * 5000),
      "oversized query" -> rawGet("/work/pool?" + "a=1&" * 2000),
      "request line without target" -> "GET\r\n\r\n",
      "empty request line" -> "\r\n\r\n",
      "request line without version" -> "GET /hello\r\n\r\n",
      "bad protocol" -> "GET /hello HTTP/9.9\r\nHost: localhost\r\n\r\n",
      "lowercase method" -> "get /hello HTTP/1.1\r\nHost: localhost\r\n\r\n",
      "absolute URI to another host" -> "GET http://example.invalid/hello HTTP/1.1\r\nHost: localhost\r\n\r\n",
      "tab in target" -> "GET /hel\tlo HTTP/1.1\r\nHost: localhost\r\n\r\n",
      "control char in target" -> "GET /hel\u0001lo HTTP/1.1\r\nHost: localhost\r\n\r\n",
      "non-ASCII target" -> "GET /caf\u00e9 HTTP/1.1\r\nHost: localhost\r\n\r\n",
      "space in target" -> "GET /customers/1 2 HTTP/1.1\r\nHost: localhost\r\n\r\n",
      "fragment in target" -> rawGet("/customers/1#x"),
      "Expect: 100-continue on GET with bad id" -> rawGet("/customers/x", "Host: localhost\r\nExpect: 100-continue\r\n"),
      "Content-Type garbage on POST" -> "POST /customers/1 HTTP/1.1\r\nHost: localhost\r\nContent-Type: ///\r\nContent-Length: 0\r\n\r\n",
      "Accept that excludes JSON" -> rawGet("/customers/x", "Host: localhost\r\nAccept: image/png\r\n"))
    ids ++ modes ++ idsAsModes ++ millis ++ paths ++ methods ++ headers

  // A request line with no space ("GET\r\n") is incomplete to Pekko's parser, which waits for more bytes: such a
  // connection ends at idle-timeout, 2 s here so that the check "no hung connection" holds within the read timeout.
  "The service" should "answer every request of a corpus of more than 200 bad ones with a JSON 4xx" in withService(
    "bulkhead.enrichment.soap.endpoint" -> "http://127.0.0.1:1/soap", "bulkhead.service.server.idle-timeout" -> "2s") {
    s =>
    corpus.size should be > 200
    val failures = corpus.flatMap { (what, raw) =>
      val Exchange(response, hung, reset) = exchangeRaw(s.port, raw)
      // Ended by the server without an answer (a close, or a reset at idle-timeout for an incomplete request line).
      val closedCleanly = response.isEmpty && !hung
      val status = "^HTTP/1\\.[01] (\\d{3})".r.findFirstMatchIn(response).map(_.group(1).toInt)
      val body = response.drop(response.indexOf("\r\n\r\n") + 4)
      val problems = Seq(
        Option.when(hung)("the connection hung: no answer and no close"),
        Option.when(reset && status.nonEmpty)("reset after a partial answer"),
        Option.when(status.isEmpty && !closedCleanly && !hung)(s"no HTTP response: '${response.take(80)}'"),
        // 501 (unknown method) and 505 (unparseable version) are the statuses HTTP mandates; both still carry JSON.
        status.filterNot(c => c >= 400 && c < 500 || c == 501 || c == 505).map(c => s"status $c"),
        Option.when(status.nonEmpty && !body.startsWith("{\"error\":"))(s"body is not a JSON error: '${body.take(80)}'"),
        Option.when(response.contains("Exception") || response.contains("\tat "))("a stack trace"))
      problems.flatten.map(p => s"$what: $p")
    }
    failures shouldBe Nil
    get(url(s, "/health")).status shouldBe 200
  }

  it should "answer HTTP/1.0 and close, and answer pipelined requests in order" in withService() { s =>
    val http10 = exchange(s.port, "GET /hello HTTP/1.0\r\nHost: localhost\r\n\r\n")
    http10 should startWith("HTTP/1.1 200 OK")
    http10 should endWith("OK")
    val socket = Socket("127.0.0.1", s.port)
    try
      socket.setSoTimeout(10000)
      socket.getOutputStream.write((rawGet("/work/async?ms=50") + rawGet("/hello") + rawGet("/nothing")).getBytes(ISO_8859_1))
      val in = socket.getInputStream
      val seen = StringBuilder()
      while "HTTP/1.1".r.findAllMatchIn(seen).size < 3 || !seen.toString.endsWith("}") do
        val buf = new Array[Byte](4096)
        val n = in.read(buf)
        if n < 0 then fail(s"connection closed after: $seen")
        seen.append(String(buf, 0, n, ISO_8859_1))
      val statuses = "HTTP/1.1 (\\d{3})".r.findAllMatchIn(seen).map(_.group(1)).toList
      statuses shouldBe List("200", "200", "404")
    finally socket.close()
  }

  it should "stay healthy after half-sent requests whose senders go away" in withService() { s =>
    for _ <- 1 to 20 do
      val socket = Socket("127.0.0.1", s.port)
      socket.getOutputStream.write("GET /customers/1 HTTP/1.1\r\nHost: loc".getBytes(ISO_8859_1))
      socket.close()
    get(url(s, "/health")).status shouldBe 200
    get(url(s, "/hello")).body shouldBe "OK"
  }
