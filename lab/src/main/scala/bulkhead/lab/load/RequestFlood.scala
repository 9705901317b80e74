package bulkhead.lab.load

import bulkhead.lab.record.{RequestLog, RequestOutcome}

import java.io.{BufferedInputStream, IOException, InputStream}
import java.net.Socket
import java.util.concurrent.atomic.{AtomicBoolean, AtomicInteger}
import java.util.concurrent.{CountDownLatch, TimeUnit}

/**
 * A flood of `total` requests at `perSecond` on `connections` keep-alive connections, each request the raw bytes
 * `request(i)` gives (illegal headers, a GET with a body): each answer read, a connection the server closes opened
 * again. Paced, so that the flood is many requests, not a CPU storm that would measure only the machine's two cores.
 */
final class RequestFlood private (name: String, connectionCount: Int, port: Int, total: Int, perSecond: Int,
    request: Int => Array[Byte], log: RequestLog) extends HostileLoad:
  private val running = AtomicBoolean(true)
  private val next = AtomicInteger()
  private val opened = AtomicInteger()
  private val sockets = HostileLoad.Sockets()
  private val done = CountDownLatch(connectionCount)
  private val t0 = System.nanoTime()
  (0 until connectionCount).foreach(c => ClosedLoopUsers.startThread(s"lab-$name-$c", () =>
    try client() finally done.countDown()))

  def connections: Int = opened.get

  private def client(): Unit =
    var socket: Socket = null
    var in: InputStream = null
    var i = next.getAndIncrement()
    while running.get && i < total do
      val due = t0 + i * 1_000_000_000L / perSecond
      val wait = (due - System.nanoTime()) / 1_000_000
      if wait > 0 then Thread.sleep(wait)
      val start = System.nanoTime()
      try
        if socket == null then
          socket = sockets.add(HostileLoad.connect(port, 10_000))
          opened.incrementAndGet()
          in = BufferedInputStream(socket.getInputStream, 16384)
        socket.getOutputStream.write(request(i))
        val answer = ClosedLoopUsers.readResponse(in)
        log.record(name, start, RequestOutcome.Status(answer.status), answer.retryAfter)
        if answer.close then
          sockets.remove(socket)
          socket = null
      catch
        case e: IOException =>
          log.record(name, start, HostileLoad.failed(e, !running.get), None)
          if socket != null then sockets.remove(socket)
          socket = null
      i = next.getAndIncrement()
    if socket != null then sockets.remove(socket)

  def stop(): Unit =
    running.set(false)
    done.await(15, TimeUnit.SECONDS)
    sockets.closeAll()

object RequestFlood:
  def start(name: String, connections: Int, port: Int, total: Int, perSecond: Int, log: RequestLog)(
      request: Int => Array[Byte]): RequestFlood =
    RequestFlood(name, connections, port, total, perSecond, request, log)
