package bulkhead.service.http

import org.apache.pekko.http.scaladsl.model.{DateTime, StatusCode}
import org.apache.pekko.util.ByteString

/**
 * An error answer rendered straight to bytes, for the connections the server answers without Pekko's HTTP layer (a
 * late request head, a connection above max-connections): the JSON body of every other error, `Connection: close`.
 */
object RawAnswer:
  def apply(status: StatusCode, detail: String, serverHeader: String, extraHeaders: Seq[(String, String)] = Nil)
      : ByteString =
    val body = ApiError.entity(status, detail).data
    val server = if serverHeader.isEmpty then "" else s"Server: $serverHeader\r\n"
    val extra = extraHeaders.map((name, value) => s"$name: $value\r\n").mkString
    ByteString(s"HTTP/1.1 ${status.intValue} ${status.reason}\r\n${server}Date: ${DateTime.now.toRfc1123DateTimeString}" +
      s"\r\n${extra}Connection: close\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n") ++
      body
