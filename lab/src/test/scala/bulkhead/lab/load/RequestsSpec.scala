package bulkhead.lab.load

import bulkhead.lab.testkit.Scratch
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files

/**
 * The user's requests as the flags and a vegeta targets file give them: each value checked before anything starts,
 * the bytes each driver sends, and the targets file read as vegeta reads it and written back for it.
 */
class RequestsSpec extends AnyFlatSpec with Matchers:
  private val dir = Scratch.dir("requests")
  private val body = Files.writeString(dir.resolve("order.json"), """{"item": 42}""")

  "A request from flags" should "carry its method, headers and the body file's bytes, on any host" in {
    val r = Requests.of("https://orders.internal:8443/orders?x=1", Some("POST"),
      Seq("Authorization: Bearer t0k:en", "X-Trace:  7 "), Some(s"@$body"), insecure = true).fold(e => fail(e), identity)
    val one = r.first
    one.method shouldBe "POST"
    one.origin shouldBe "https://orders.internal:8443"
    one.target shouldBe "/orders?x=1"
    one.headers shouldBe Seq("Authorization" -> "Bearer t0k:en", "X-Trace" -> "7")
    String(one.body.toArray, UTF_8) shouldBe """{"item": 42}"""
    r.insecure shouldBe true
    r.plainGet shouldBe false
  }

  it should "be a POST when it has a body and no method, and a GET otherwise" in {
    Requests.of("http://127.0.0.1:1/", None, Nil, Some(s"@$body"), insecure = false).map(_.first.method) shouldBe
      Right("POST")
    Requests.of("http://127.0.0.1:1/", None, Nil, None, insecure = false).map(_.plainGet) shouldBe Right(true)
  }

  Seq(
    (Seq("Authorization Bearer x"), None, None, "http://h/", "with a colon"),
    (Seq(": empty name"), None, None, "http://h/", "not a header name"),
    (Seq("X-Empty:"), None, None, "http://h/", "needs a value"),
    (Nil, None, Some("/etc/hostname"), "http://h/", "@FILE"),
    (Nil, None, Some("@/no/such/body.json"), "http://h/", "no such body file: /no/such/body.json"),
    (Nil, Some("post"), None, "http://h/", "not an HTTP method"),
    (Nil, None, None, "ftp://h/x", "not an http:// or https:// URL"),
    (Nil, None, None, "http:///nohost", "with a host")).foreach { (headers, method, b, url, said) =>
    it should s"be refused, saying '$said', for ${(headers ++ method ++ b :+ url).mkString(" ")}" in {
      Requests.of(url, method, headers, b, insecure = false).left.toOption.get should include(said)
    }
  }

  it should "go on the wire as HTTP/1.1: Host, its headers, Content-Length for its body" in {
    val r = Requests.of("http://127.0.0.1:8080/orders", Some("POST"), Seq("Authorization: Bearer t"), Some(s"@$body"),
      insecure = false).fold(e => fail(e), identity).first
    String(r.wire(keepAlive = true), UTF_8) shouldBe "POST /orders HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n" +
      "Authorization: Bearer t\r\nContent-Length: 12\r\n\r\n{\"item\": 42}"
    String(Request("GET", java.net.URI.create("http://[::1]/")).wire(keepAlive = false), UTF_8) shouldBe
      "GET / HTTP/1.1\r\nHost: [::1]:80\r\nConnection: close\r\n\r\n"
  }

  "A targets file" should "be read as vegeta reads it: headers, an @body, blank lines and comments" in {
    val text =
      s"""# three routes of different cost
         |GET http://127.0.0.1:8080/hello
         |
         |GET http://127.0.0.1:8080/work
         |X-Account: 8675309
         |POST http://127.0.0.1:8080/orders
         |Authorization: Bearer t
         |Content-Type: application/json
         |@$body
         |""".stripMargin
    val targets = TargetsFile.parse(text, Seq("X-Lab" -> "1")).fold(e => fail(e), identity)
    targets.map(t => s"${t.method} ${t.target}") shouldBe Seq("GET /hello", "GET /work", "POST /orders")
    targets(1).headers shouldBe Seq("X-Lab" -> "1", "X-Account" -> "8675309")
    targets(2).headers.map(_._1) shouldBe Seq("X-Lab", "Authorization", "Content-Type")
    targets(2).body.length shouldBe 12
    Requests(targets).routes shouldBe Seq("GET /hello", "GET /work", "POST /orders")
  }

  Seq(
    "GET\n" -> "line 1: a target starts with 'METHOD URL'",
    "get http://h/\n" -> "line 1",
    "GET http://h/\nAuthorization Bearer\n" -> "line 2: a header is 'Name: value'",
    "GET http://h/\n@/no/such/file\n" -> "line 2: no such body file",
    "GET nothost\n" -> "line 1: not an http:// or https:// URL",
    "# only a comment\n\n" -> "no target in it").foreach { (text, said) =>
    it should s"be refused, naming '$said', for ${text.linesIterator.next()}" in {
      TargetsFile.parse(text).left.toOption.get should include(said)
    }
  }

  it should "be refused when missing, naming the file" in {
    TargetsFile.read(dir.resolve("no-targets.txt")).left.toOption.get should include("no such targets file")
  }

  it should "be written back in vegeta's format, bodies as files, and read back the same" in {
    val requests = Requests(TargetsFile.parse(s"POST http://h:1/a\nX-A: 1\n@$body\n\nGET https://h:2/b\n")
      .fold(e => fail(e), identity))
    val out = Scratch.dir("vegeta-targets")
    TargetsFile.parse(TargetsFile.write(requests, out)) shouldBe Right(requests.targets)
    requests.routes shouldBe Seq("POST http://h:1/a", "GET https://h:2/b")
  }

  "The wrk script" should "give each thread one route: its method, path, headers and body as Lua strings" in {
    val requests = Requests.of("http://127.0.0.1:8080/orders", Some("POST"), Seq("Authorization: Bearer \"q\""),
      Some(s"@$body"), insecure = false).fold(e => fail(e), identity)
    val script = WrkScript(requests)
    script should include("""{ method = "POST", path = "/orders", headers = { ["Authorization"] = "Bearer \"q\"" }, """ +
      """body = "{\"item\": 42}" }""")
    script should include("function bulkhead_assign(thread)")
    script should include("bulkhead-route %d %d %d")
    WrkScript.lua(Array[Byte](10, 'a', -1)) shouldBe "\"\\010a\\255\""
  }
