package bulkhead.lab.load

import bulkhead.lab.record.{RequestLog, RequestOutcome}

import java.io.{BufferedInputStream, IOException}
import java.net.{Socket, SocketTimeoutException}
import java.nio.charset.StandardCharsets.US_ASCII
import java.util.concurrent.atomic.{AtomicBoolean, AtomicInteger}
import java.util.concurrent.{CountDownLatch, TimeUnit}

/**
 * Clients that announce a request body (`Content-Length`) and send it one byte every `every`: each sends a request
 * head for `path(i)`, then trickles its body until it gets an answer or the server closes, and starts again on a new
 * connection. A server that waits for the body keeps a connection (and what it allotted to the request) per client.
 */
final class SlowBodies private (name: String, users: Int, port: Int, path: Int => String, bodyBytes: Int,
    every: Long, log: RequestLog) extends HostileLoad:
  private val running = AtomicBoolean(true)
  private val opened = AtomicInteger()
  private val counter = AtomicInteger()
  private val sockets = HostileLoad.Sockets()
  private val done = CountDownLatch(users)
  (0 until users).foreach(u => ClosedLoopUsers.startThread(s"lab-$name-$u", () =>
    try client() finally done.countDown()))

  def connections: Int = opened.get

  private def client(): Unit =
    while running.get do
      val start = System.nanoTime()
      var s: Socket = null
      try
        s = sockets.add(HostileLoad.connect(port, every.toInt))
        opened.incrementAndGet()
        val out = s.getOutputStream
        out.write((s"GET ${path(counter.incrementAndGet())} HTTP/1.1\r\nHost: 127.0.0.1:$port\r\n" +
          s"Content-Length: $bodyBytes\r\n\r\nb").getBytes(US_ASCII))
        val in = BufferedInputStream(s.getInputStream, 4096)
        var answer: Option[ClosedLoopUsers.Response] = None
        var sent = 1
        while answer.isEmpty && running.get do
          try answer = Some(ClosedLoopUsers.readResponse(in))
          catch
            case _: SocketTimeoutException if sent < bodyBytes =>
              out.write('b'.toInt)
              sent += 1
        answer match
          case Some(a) => log.record(name, start, RequestOutcome.Status(a.status), a.retryAfter)
          case None => log.record(name, start, RequestOutcome.Abandoned, None)
      catch case e: IOException => log.record(name, start, HostileLoad.failed(e, !running.get), None)
      finally if s != null then sockets.remove(s)
      val until = System.nanoTime() + every * 1_000_000
      while running.get && System.nanoTime() < until do Thread.sleep(50)

  def stop(): Unit =
    running.set(false)
    sockets.closeAll()
    done.await(every * 3, TimeUnit.MILLISECONDS)

object SlowBodies:
  def start(name: String, users: Int, port: Int, path: Int => String, log: RequestLog, bodyBytes: Int = 1000,
      every: Long = 1000): SlowBodies = SlowBodies(name, users, port, path, bodyBytes, every, log)
