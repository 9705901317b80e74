package bulkhead.service.testkit

import java.io.{ByteArrayOutputStream, InputStream}
import java.net.{InetSocketAddress, Socket, SocketException, SocketTimeoutException}
import java.nio.charset.StandardCharsets.ISO_8859_1

/** HTTP/1.1 over a raw socket, for requests no HTTP client would send (malformed, slow, abandoned). */
object RawHttp:
  /**
   * What came back: the raw text (empty if none), whether the server neither answered nor closed within the read
   * timeout (`hung`), whether it reset the connection before any answer, and the seconds until the answer or the end.
   */
  final case class Exchange(response: String, hung: Boolean, reset: Boolean, seconds: Double):
    def status: Option[Int] = "^HTTP/1\\.[01] (\\d{3})".r.findFirstMatchIn(response).map(_.group(1).toInt)
    def head: String = response.take(response.indexOf("\r\n\r\n").max(0))
    def body: String = if response.contains("\r\n\r\n") then response.drop(response.indexOf("\r\n\r\n") + 4) else ""
    def header(name: String): Option[String] =
      s"(?im)^$name: *(.*)$$".r.findFirstMatchIn(head).map(_.group(1).trim)

  def connect(port: Int, readTimeoutMs: Int = 10000): Socket =
    val socket = Socket()
    socket.connect(InetSocketAddress("127.0.0.1", port), 5000)
    socket.setSoTimeout(readTimeoutMs)
    socket

  /** Sends `raw` on a new connection and reads one answer. */
  def exchange(port: Int, raw: String, readTimeoutMs: Int = 10000): Exchange =
    val socket = connect(port, readTimeoutMs)
    try
      val start = System.nanoTime()
      socket.getOutputStream.write(raw.getBytes(ISO_8859_1))
      socket.getOutputStream.flush()
      read(socket.getInputStream, start)
    finally socket.close()

  /** Reads until the server closes, or a full answer with Content-Length has arrived. */
  def read(in: InputStream, start: Long = System.nanoTime()): Exchange =
    val out = ByteArrayOutputStream()
    val buf = new Array[Byte](8192)
    var done = false
    var hung = false
    var reset = false
    while !done do
      val n =
        try in.read(buf)
        catch
          case _: SocketTimeoutException =>
            hung = out.size == 0
            -1
          // The server may close with our unread bytes still queued (RST): fine once its answer has arrived.
          case _: SocketException if out.size > 0 => -1
          case _: SocketException =>
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
    Exchange(out.toString(ISO_8859_1), hung, reset, (System.nanoTime() - start) / 1e9)

  def get(target: String, headers: String = "Host: localhost\r\n"): String = s"GET $target HTTP/1.1\r\n$headers\r\n"
