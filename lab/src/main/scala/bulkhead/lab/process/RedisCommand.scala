package bulkhead.lab.process

import java.io.{BufferedReader, InputStreamReader}
import java.net.{InetSocketAddress, Socket}
import java.nio.charset.StandardCharsets.UTF_8
import scala.util.Using

/** One Redis command over RESP on a fresh loopback connection (CLIENT PAUSE, AUTH checks): no client library needed. */
object RedisCommand:
  /**
   * Sends the command (after AUTH when a password is given) and returns the first reply line, a bulk string's text
   * (INFO's), or why it failed.
   */
  def send(port: Int, args: Seq[String], password: Option[String] = None): Either[String, String] =
    try
      Using.resource(Socket()) { s =>
        s.connect(InetSocketAddress("127.0.0.1", port), 2000)
        s.setSoTimeout(5000)
        val in = BufferedReader(InputStreamReader(s.getInputStream, UTF_8))
        def call(a: Seq[String]): String =
          val frame = a.map(x => s"$$${x.getBytes(UTF_8).length}\r\n$x\r\n").mkString(s"*${a.size}\r\n", "", "")
          s.getOutputStream.write(frame.getBytes(UTF_8))
          Option(in.readLine()).getOrElse("-ERR connection closed")
        val auth = password.map(p => call(Seq("AUTH", p))).getOrElse("+OK")
        if auth.startsWith("-") then Left(auth.drop(1))
        else
          val reply = call(args)
          if reply.startsWith("-") then Left(reply.drop(1))
          else if reply.startsWith("$") && !reply.startsWith("$-1") then
            // A bulk string (INFO): its length, then its bytes and CRLF; read whole, its lines joined by newlines.
            val length = reply.drop(1).toInt
            val text = StringBuilder()
            while text.length < length do
              Option(in.readLine()).fold(text.append(" " * length))(l => text.append(l).append("\r\n"))
            Right(text.toString)
          else Right(reply)
      }
    catch case e: java.io.IOException => Left(s"redis on port $port: ${e.getMessage}")
