package bulkhead.service.http

import bulkhead.service.testkit.HttpProbe.*
import bulkhead.service.testkit.RawHttp
import bulkhead.service.testkit.TestService.*
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.net.Socket
import java.nio.charset.StandardCharsets.ISO_8859_1
import java.util.concurrent.Executors
import scala.concurrent.duration.*
import scala.concurrent.{Await, ExecutionContext, Future}

/**
 * A corpus of bad requests sent over raw sockets, with the service's shipped timeouts: each gets a JSON 4xx, or the
 * status HTTP mandates for it (listed with the entry), never a 5xx, a stack trace, a hung connection, or a connection
 * closed without an answer.
 */
@Slow
class BadInputSpec extends AnyFlatSpec with Matchers:

  private def exchange(port: Int, raw: String): String = RawHttp.exchange(port, raw).response
  private def rawGet(target: String, headers: String = "Host: localhost\r\n") = RawHttp.get(target, headers)

  /** A bad request: how to send it, and the status HTTP mandates for it when that is not "a 4xx". */
  private final case class Entry(what: String, send: Int => RawHttp.Exchange, mandated: Option[Int] = None)

  private def entry(what: String, raw: String, mandated: Option[Int] = None): Entry =
    Entry(what, port => RawHttp.exchange(port, raw, readTimeoutMs = 40000), mandated)

  /** Sends the head, then the body while reading: the service may answer before the body is all sent. */
  private def withBody(port: Int, head: String, body: Array[Byte]): RawHttp.Exchange =
    val socket = RawHttp.connect(port, readTimeoutMs = 40000)
    try
      val start = System.nanoTime()
      val sender = Future {
        try
          socket.getOutputStream.write(head.getBytes(ISO_8859_1))
          body.grouped(64 * 1024).foreach(socket.getOutputStream.write)
        catch case _: java.io.IOException => () // the service answered and closed before the end of the body
      }(ExecutionContext.global)
      val answer = RawHttp.read(socket.getInputStream, start)
      Await.ready(sender, 60.seconds)
      answer
    finally socket.close()

  /** Sends `parts` one by one, `pauseMs` apart, reading the answer at the end. */
  private def slowly(port: Int, parts: Seq[String], pauseMs: Long): RawHttp.Exchange =
    val socket = RawHttp.connect(port, readTimeoutMs = 40000)
    try
      val start = System.nanoTime()
      val answer = Future(RawHttp.read(socket.getInputStream, start))(ExecutionContext.global)
      parts.foreach { p =>
        if !answer.isCompleted then
          try
            socket.getOutputStream.write(p.getBytes(ISO_8859_1))
            Thread.sleep(pauseMs)
          catch case _: java.io.IOException => ()
      }
      Await.result(answer, 60.seconds)
    finally socket.close()

  /** The corpus. */
  private val corpus: Seq[Entry] =
    val ids = Seq("", "-1", "0", "-0", "00", "1.0", "1e3", "0x10", "abc", "1a", "a1", " 1", "1%20", "%3x", "9" * 10,
      "9" * 40, "99999999999999999999999", "%00", "%FF", "%2D1", "%C3%A9", "%E2%82%AC", "%F0%9F%98%80", "..", "%2e%2e",
      "1%2F2", "%2F", "1;drop", "1'", "1\"", "<script>", "%3Cscript%3E", "1,2", "1+1", "+1", "NaN", "null", "true",
      "[1]", "%7B%7D", "1%0A", "%0D%0A", "\u0661", "%2B", "1%00", "0001x", "%EF%BC%91", "%E2%80%8B1", "1%E2%80%8B")
      .map(id => entry(s"id '$id'", rawGet(s"/customers/${id.replace(" ", "%20")}")))
    val modes = Seq("", "DEFAULT", "Pool", "turbo", "pool2", "%70oo", "async%00", "virtual%20", "..", "%2F")
      .map(m => entry(s"mode '$m'", rawGet(s"/work/$m")))
    val millis = for
      mode <- Seq("default", "pool", "virtual", "async")
      ms <- Seq("-1", "60001", "abc", "", "1.5", "1e3", "99999999999", "0x10", "%00", "1,2", " ", "%2B1", "NaN")
    yield entry(s"$mode ms '$ms'", rawGet(s"/work/$mode?ms=${ms.replace(" ", "%20")}"))
    val idsAsModes = Seq("-1", "abc", "%00", "%C3%A9", "%F0%9F%98%80", "1%2F2", "<script>", "%3Cscript%3E", "null",
      "%E2%82%AC", "9" * 40, "1;drop", "[1]", "%7B%7D").map(m => entry(s"mode '$m'", rawGet(s"/work/$m")))
    val paths = Seq("/", "/hello/", "/hello/x", "/HELLO", "/work", "/work/", "/work/pool/extra", "/customers",
      "/customers/1/2", "/metrics/x", "/health/x", "/%2e%2e/etc/passwd", "/..%2F..%2Fetc%2Fpasswd", "/%00",
      "/%ZZ", "/%", "/%E0%A4%A", "//", "/customers//1", "/work//pool", "/a" * 20)
      .map(p => entry(s"path '${p.take(40)}'", rawGet(p)))
    val methods = for
      method <- Seq("POST", "PUT", "DELETE", "PATCH")
      path <- Seq("/hello", "/customers/1", "/work/pool", "/metrics", "/health", "/work/async?ms=1", "/customers/abc",
        "/nothing", "/work/turbo")
    yield entry(s"$method $path", s"$method $path HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n\r\n{}")
    val headers = Seq(
      entry("oversized header", rawGet("/hello", s"Host: localhost\r\nX-Big: ${"a" * 20000}\r\n")),
      entry("many headers", rawGet("/hello", "Host: localhost\r\n" + (1 to 200).map(i => s"X-H$i: v\r\n").mkString)),
      entry("duplicated Host", rawGet("/hello", "Host: a\r\nHost: b\r\n")),
      entry("no Host in HTTP/1.1", "GET /hello HTTP/1.1\r\n\r\n"),
      entry("header without colon", rawGet("/hello", "Host: localhost\r\nBroken header line\r\n")),
      entry("header name with space", rawGet("/hello", "Host: localhost\r\nBad Name: v\r\n")),
      entry("bad Content-Length", rawGet("/hello", "Host: localhost\r\nContent-Length: abc\r\n")),
      entry("negative Content-Length", rawGet("/hello", "Host: localhost\r\nContent-Length: -5\r\n")),
      entry("two Content-Lengths", rawGet("/hello", "Host: localhost\r\nContent-Length: 1\r\nContent-Length: 2\r\n")),
      entry("bad Transfer-Encoding", rawGet("/hello", "Host: localhost\r\nTransfer-Encoding: gzip, bogus\r\n")),
      entry("bad chunk size",
        "POST /hello HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nx\r\n0\r\n\r\n"),
      entry("oversized URI", rawGet("/customers/" + "1" * 5000)),
      entry("oversized query", rawGet("/work/pool?" + "a=1&" * 2000)),
      // A request line that never completes is answered at request-head-timeout: 408.
      entry("request line without target", "GET\r\n\r\n"),
      entry("empty request line", "\r\n\r\n"),
      entry("request line without a space", "GET/customers/1HTTP/1.1\r\nHost: localhost\r\n\r\n"),
      entry("request line of one word", "GETCUSTOMERS\r\nHost: localhost\r\n\r\n"),
      // RFC 9112 2.3: an HTTP version the server does not support is answered 505.
      entry("request line without version", "GET /hello\r\n\r\n", Some(505)),
      entry("bad protocol", "GET /hello HTTP/9.9\r\nHost: localhost\r\n\r\n", Some(505)),
      // RFC 9110 15.6.2: a method the server does not recognise is answered 501 (methods are case-sensitive).
      entry("lowercase method", "get /hello HTTP/1.1\r\nHost: localhost\r\n\r\n", Some(501)),
      entry("absolute URI to another host", "GET http://example.invalid/hello HTTP/1.1\r\nHost: localhost\r\n\r\n"),
      // A target with a space (or a tab) splits the request line: what follows the target is read as the HTTP version,
      // and a version the server does not support is answered 505 (RFC 9112 2.3).
      entry("tab in target", "GET /hel\tlo HTTP/1.1\r\nHost: localhost\r\n\r\n", Some(505)),
      entry("control char in target", "GET /hel\u0001lo HTTP/1.1\r\nHost: localhost\r\n\r\n"),
      entry("non-ASCII target", "GET /caf\u00e9 HTTP/1.1\r\nHost: localhost\r\n\r\n"),
      entry("space in target", "GET /customers/1 2 HTTP/1.1\r\nHost: localhost\r\n\r\n", Some(505)),
      entry("fragment in target", rawGet("/customers/1#x")),
      entry("Expect: 100-continue on GET with bad id",
        rawGet("/customers/x", "Host: localhost\r\nExpect: 100-continue\r\n")),
      entry("Content-Type garbage on POST",
        "POST /customers/1 HTTP/1.1\r\nHost: localhost\r\nContent-Type: ///\r\nContent-Length: 0\r\n\r\n"),
      entry("Accept that excludes JSON", rawGet("/customers/x", "Host: localhost\r\nAccept: image/png\r\n")),
      Entry("7 MB body", port => withBody(port,
        "POST /customers/1 HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n" +
          s"Content-Length: ${7 << 20}\r\n\r\n",
        Array.fill[Byte](7 << 20)('a'.toByte))),
      // A head sent in pieces within the deadline is read as any other: here a bad id.
      Entry("slow header, complete in time", port => slowly(port,
        Seq("GET /customers/abc HTTP/1.1\r\n", "Host: local", "host\r\nX-Slow: ", "1\r\n", "\r\n"), 500)),
      // One byte a second, for ever: answered at request-head-timeout.
      Entry("slow header, never complete", port => slowly(port,
        ("GET /customers/1 HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + "a" * 60).grouped(1).toSeq, 1000)))
    ids ++ modes ++ idsAsModes ++ millis ++ paths ++ methods ++ headers

  "The service" should "answer every request of a corpus of more than 200 bad ones with a JSON 4xx or HTTP's status" in
    withService("bulkhead.enrichment.soap.endpoint" -> "http://127.0.0.1:1/soap") { s =>
      corpus.size should be > 200
      // In parallel: the entries answered at request-head-timeout (10 s) would take minutes one after the other.
      val pool = Executors.newFixedThreadPool(48)
      given ExecutionContext = ExecutionContext.fromExecutor(pool)
      val failures =
        try
          val answers = Future.traverse(corpus)(e => Future(e -> e.send(s.port)))
          Await.result(answers, 3.minutes).flatMap { (entry, answer) =>
            val status = answer.status
            val problems = Seq(
              Option.when(answer.hung)("the connection hung: no answer and no close"),
              Option.when(status.isEmpty && !answer.hung)(
                s"no HTTP answer (the connection was ${if answer.reset then "reset" else "closed"}): " +
                  s"'${answer.response.take(80)}'"),
              status.filterNot(c => entry.mandated.fold(c >= 400 && c < 500)(_ == c))
                .map(c => s"status $c, expected ${entry.mandated.fold("a 4xx")(_.toString)}"),
              Option.when(status.nonEmpty && !answer.body.startsWith("{\"error\":"))(
                s"body is not a JSON error: '${answer.body.take(80)}'"),
              Option.when(answer.response.contains("Exception") || answer.response.contains("\tat "))("a stack trace"))
            problems.flatten.map(p => s"${entry.what}: $p")
          }
        finally pool.shutdownNow()
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
