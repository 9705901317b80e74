package bulkhead.lab.load

import java.net.URI
import java.nio.charset.StandardCharsets.{US_ASCII, UTF_8}
import java.nio.file.{Files, Path}
import scala.collection.immutable.ArraySeq

/**
 * One HTTP request the load sends, as a user writes it: a method, an absolute `http://` or `https://` URL on any host,
 * headers in the order given (a name may repeat), and a body (empty for none). Every load driver sends it as is.
 */
final case class Request(method: String, url: URI, headers: Seq[(String, String)] = Nil,
    body: ArraySeq[Byte] = ArraySeq.empty):
  def https: Boolean = url.getScheme == "https"
  def host: String = url.getHost
  def port: Int = if url.getPort > 0 then url.getPort else if https then 443 else 80
  /** `scheme://host:port`: where the request goes. */
  def origin: String = s"${url.getScheme}://${Request.hostForUrl(host)}:$port"
  /** The path and query as the request line carries them (`/` for none). */
  def target: String =
    val path = Option(url.getRawPath).filter(_.nonEmpty).getOrElse("/")
    Option(url.getRawQuery).fold(path)(q => s"$path?$q")
  /** How reports name it: `POST /orders`, with the host when the load goes to several ([[Requests.route]]). */
  def route(withOrigin: Boolean): String = s"$method ${if withOrigin then url.toString else target}"
  /** A GET without headers or body: all a URL on its own asks for. */
  def plainGet: Boolean = method == "GET" && headers.isEmpty && body.isEmpty
  def has(header: String): Boolean = headers.exists(_._1.equalsIgnoreCase(header))

  /**
   * The request as HTTP/1.1 puts it on the wire: its request line, Host (unless given), its headers, Content-Length
   * when it has a body (or is a method that carries one), and `Connection: close` when the connection is not kept.
   */
  def wire(keepAlive: Boolean): Array[Byte] =
    val head = StringBuilder(s"$method $target HTTP/1.1\r\n")
    if !has("Host") then head.append(s"Host: ${Request.hostForUrl(host)}:$port\r\n")
    headers.foreach((k, v) => head.append(s"$k: $v\r\n"))
    if !has("Content-Length") && (body.nonEmpty || Request.BodyMethods(method)) then
      head.append(s"Content-Length: ${body.length}\r\n")
    if !keepAlive && !has("Connection") then head.append("Connection: close\r\n")
    head.append("\r\n")
    head.toString.getBytes(UTF_8) ++ body.toArray

object Request:
  /** Methods whose requests carry a body, so an empty one still says `Content-Length: 0`. */
  val BodyMethods: Set[String] = Set("POST", "PUT", "PATCH")

  private val Method = "^[A-Z]+$".r
  /** RFC 9110's token characters: what a header name may hold. */
  private val Token = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$".r

  /** A method as HTTP writes it: upper-case letters (`GET`, `POST`, `PURGE`). */
  def method(m: String): Either[String, String] =
    if Method.matches(m) then Right(m) else Left(s"not an HTTP method (upper-case letters, like POST): '$m'")

  /** An absolute `http://` or `https://` URL with a host; any host, loopback or not. */
  def url(u: String): Either[String, URI] =
    scala.util.Try(URI.create(u)).toOption
      .filter(x => (x.getScheme == "http" || x.getScheme == "https") && x.getHost != null)
      .toRight(s"not an http:// or https:// URL with a host: '$u'")

  /** `Name: value` (as curl's -H and vegeta's targets take it): a token, a colon, a value that is not empty. */
  def header(line: String): Either[String, (String, String)] =
    val colon = line.indexOf(':')
    if colon < 0 then Left(s"a header is 'Name: value', with a colon: '$line'")
    else
      val (name, value) = (line.take(colon).trim, line.drop(colon + 1).trim)
      if !Token.matches(name) then Left(s"not a header name (letters, digits, - and _): '$name' in '$line'")
      else if value.isEmpty then Left(s"a header needs a value after its colon: '$line'")
      else if value.exists(c => c == '\r' || c == '\n') then Left(s"a header value is one line: '$name'")
      else Right(name -> value)

  /** A body from `@FILE` (curl's and vegeta's way); the file is read now, so a missing one is refused up front. */
  def body(spec: String): Either[String, ArraySeq[Byte]] =
    if !spec.startsWith("@") then Left(s"a body is given as @FILE (the file holding it), was '$spec'")
    else file(spec.drop(1))

  /** The bytes of a body file, or why not. */
  def file(name: String): Either[String, ArraySeq[Byte]] =
    val path = Path.of(name)
    if name.isEmpty then Left("a body file is named after the @")
    else if !Files.isRegularFile(path) then Left(s"no such body file: $name")
    else if !Files.isReadable(path) then Left(s"cannot read the body file: $name")
    else Right(ArraySeq.unsafeWrapArray(Files.readAllBytes(path)))

  /** An IPv6 literal in brackets, as a URL and a Host header write it. */
  def hostForUrl(host: String): String = if host.contains(':') && !host.startsWith("[") then s"[$host]" else host

  /** Bytes as a readable string, for a description (`12 bytes`). */
  def describeBody(body: ArraySeq[Byte]): String =
    if body.isEmpty then "no body"
    else if body.forall(b => b >= 0x20 && b < 0x7f) && body.length <= 60 then s"body '${String(body.toArray, US_ASCII)}'"
    else s"a body of ${body.length} bytes"
