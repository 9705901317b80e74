package bulkhead.lab.load

import bulkhead.lab.model.{Answers, Latencies, LoadFigures, LoadSecond}
import bulkhead.lab.record.{RequestLog, RequestOutcome}

import java.io.{BufferedInputStream, IOException, InputStream}
import java.net.{InetSocketAddress, Socket, SocketTimeoutException}
import java.nio.charset.StandardCharsets.US_ASCII
import java.util.concurrent.atomic.{AtomicBoolean, AtomicInteger}
import java.util.concurrent.{ConcurrentHashMap, CountDownLatch, TimeUnit}
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*

/**
 * A group of closed-loop users, each on its own connection (to 127.0.0.1 unless the group's `request` names a host):
 * send a request, read the whole answer, send the next. Unlike wrk it records every request (status or why none came, per second) and unlike JMeter it costs
 * almost no CPU at a few hundred users, which matters when the server shares 2 cores with it. Users run on virtual
 * threads where the JDK has them.
 *
 * @param keepAlive     reuse the connection (HTTP/1.1 keep-alive); else `Connection: close` and one per request
 * @param oneShot       each user sends one request and ends (a burst of new connections)
 * @param honourRetryAfter after a 503 with Retry-After, wait that long (at most `maxRetryAfter`) like a polite client
 * @param request       the user's request, sent as is (its host, port, method, headers, body; over TLS for https)
 *                      in place of a GET of `path` on 127.0.0.1:`port`
 * @param insecure      with an https `request`: take any certificate (a self-signed one)
 */
final case class UserGroup(name: String, users: Int, port: Int, path: Int => String, keepAlive: Boolean = true,
    oneShot: Boolean = false, honourRetryAfter: Boolean = true, readTimeout: FiniteDuration = 20.seconds,
    maxRetryAfter: FiniteDuration = 5.seconds, request: Option[Request] = None, insecure: Boolean = false):
  require(users >= 0, s"users must be >= 0, was $users")
  def host: String = request.fold("127.0.0.1")(_.host)
  def portTo: Int = request.fold(port)(_.port)
  /** The bytes of the `n`-th request. */
  def wire(n: Int): Array[Byte] = request match
    case Some(r) => r.wire(keepAlive)
    case None => (s"GET ${path(n)} HTTP/1.1\r\nHost: 127.0.0.1:$port\r\n" +
      (if keepAlive then "" else "Connection: close\r\n") + "\r\n").getBytes(US_ASCII)
  /** A HEAD's answer has headers only, whatever its Content-Length says. */
  def bodiless: Boolean = request.exists(_.method == "HEAD")

/** Started users of a group; `stop` ends them (each finishes its request) and `abandon` closes their sockets now. */
final class RunningGroup(val group: UserGroup, log: RequestLog):
  private val running = AtomicBoolean(true)
  private val done = CountDownLatch(group.users)
  private val sockets = ConcurrentHashMap.newKeySet[Socket]()
  private val abandoned = AtomicBoolean(false)
  private val counter = AtomicInteger()
  private val tls = group.request.filter(_.https).map(_ => Tls.factory(group.insecure))
  private val threads = (0 until group.users).map(i => ClosedLoopUsers.startThread(s"lab-${group.name}-$i", () =>
    try user(i) finally done.countDown()))

  /** Ends the loop; every user finishes the request it is in (bounded by the read timeout). True if all ended. */
  def stop(limit: FiniteDuration = group.readTimeout + 5.seconds): Boolean =
    running.set(false)
    done.await(limit.toMillis, TimeUnit.MILLISECONDS)

  /** Closes every connection at once: requests without an answer yet are recorded as abandoned. */
  def abandon(): Boolean =
    abandoned.set(true)
    running.set(false)
    sockets.asScala.foreach(s => try s.close() catch case _: IOException => ())
    done.await(10, TimeUnit.SECONDS)

  def finished: Boolean = done.getCount == 0

  private def user(index: Int): Unit =
    var socket: Socket = null
    var in: InputStream = null
    var first = true
    while running.get && (first || !group.oneShot) do
      first = false
      if socket == null then
        socket = connect()
        if socket != null then in = BufferedInputStream(socket.getInputStream, 16384)
      if socket != null then
        val start = System.nanoTime()
        try
          socket.getOutputStream.write(group.wire(counter.incrementAndGet()))
          val answer = ClosedLoopUsers.readResponse(in, group.bodiless)
          log.record(group.name, start, RequestOutcome.Status(answer.status), answer.retryAfter)
          if answer.close || !group.keepAlive then socket = close(socket)
          if answer.status == 503 && group.honourRetryAfter then
            answer.retryAfter.flatMap(_.toLongOption).foreach { s =>
              val wait = (s * 1000).min(group.maxRetryAfter.toMillis)
              val until = System.nanoTime() + wait * 1_000_000
              while running.get && System.nanoTime() < until do Thread.sleep(20)
            }
        catch
          case _: SocketTimeoutException =>
            log.record(group.name, start, RequestOutcome.Timeout, None)
            socket = close(socket)
          case e: IOException =>
            val outcome =
              if abandoned.get then RequestOutcome.Abandoned
              else if e.isInstanceOf[java.io.EOFException] then RequestOutcome.Closed
              else RequestOutcome.Reset
            log.record(group.name, start, outcome, None)
            socket = close(socket)
      else if running.get then Thread.sleep(100)
    if socket != null then close(socket)

  private def connect(): Socket =
    val start = System.nanoTime()
    val s = Socket()
    try
      sockets.add(s)
      s.setTcpNoDelay(true)
      s.setSoTimeout(group.readTimeout.toMillis.toInt)
      s.connect(InetSocketAddress(group.host, group.portTo), 5000)
      tls.fold(s) { factory =>
        val wrapped = Tls.wrap(factory, s, group.host, group.portTo, checkName = !group.insecure)
        sockets.add(wrapped)
        sockets.remove(s)
        wrapped
      }
    catch
      case _: IOException =>
        log.record(group.name, start, RequestOutcome.Connect, None)
        close(s)

  private def close(s: Socket): Null =
    sockets.remove(s)
    try s.close() catch case _: IOException => ()
    null

object ClosedLoopUsers:
  def start(group: UserGroup, log: RequestLog): RunningGroup = RunningGroup(group, log)

  /**
   * The requests of a log that ended in `[from, to)` (seconds of the log) as every load driver reports them: answers by
   * status class, HdrHistogram latencies of the answers, and each second with the requests that got no answer. A
   * connection that failed is a connect error, one closed, reset or abandoned before its answer a read error.
   */
  def figures(log: Seq[RequestLog.Entry], clients: Int, from: Double, to: Double, description: String): LoadFigures =
    val in = log.filter(e => e.endSecond >= from && e.endSecond < to)
    def byClass(es: Seq[RequestLog.Entry]) = es.flatMap(_.outcome.status).groupMapReduce(Answers.classOf)(_ => 1L)(_ + _)
    def count(outcomes: RequestOutcome*) = in.count(e => outcomes.contains(e.outcome)).toLong
    val answers = Answers(byClass(in), count(RequestOutcome.Connect),
      count(RequestOutcome.Closed, RequestOutcome.Reset, RequestOutcome.Abandoned), 0, count(RequestOutcome.Timeout))
    val bySecond = in.groupBy(_.endSecond.toInt)
    // Every second of the window, those without a single request too: an outage is a second of nothing.
    val seconds = (from.toInt until math.ceil(to).toInt).map { s =>
      val es = bySecond.getOrElse(s, Nil)
      val answered = es.filter(_.answered)
      val latency = Option.when(answered.nonEmpty)(Latencies.ofMillis(answered.map(_.latencyMs)))
      LoadSecond(s, byClass(es), clients, latency.map(_.p50Ms), latency.map(_.p99Ms),
        Some(es.count(!_.answered).toLong))
    }
    LoadFigures("closed-loop", description, clients, to - from, answers,
      Latencies.ofMillis(in.filter(_.answered).map(_.latencyMs)), seconds)

  final case class Response(status: Int, retryAfter: Option[String], close: Boolean)

  /**
   * Reads one HTTP/1.1 response (Content-Length or chunked body; none after a HEAD, a 1xx, 204 or 304) and returns its
   * status and the headers we need.
   */
  def readResponse(in: InputStream, head: Boolean = false): Response =
    val statusLine = line(in)
    val status = statusLine.split(' ').lift(1).flatMap(_.toIntOption)
      .getOrElse(throw IOException(s"not an HTTP status line: '${statusLine.take(80)}'"))
    var length = 0L
    var chunked = false
    var retryAfter: Option[String] = None
    var close = statusLine.startsWith("HTTP/1.0")
    var header = line(in)
    while header.nonEmpty do
      val i = header.indexOf(':')
      if i > 0 then
        val value = header.drop(i + 1).trim
        header.take(i).trim.toLowerCase match
          case "content-length" => length = value.toLong
          case "transfer-encoding" => chunked = value.toLowerCase.contains("chunked")
          case "retry-after" => retryAfter = Some(value)
          case "connection" => close = value.equalsIgnoreCase("close")
          case _ =>
      header = line(in)
    if head || status / 100 == 1 || status == 204 || status == 304 then ()
    else if chunked then
      var size = Integer.parseInt(line(in).split(';')(0).trim, 16)
      while size > 0 do
        skip(in, size + 2L)
        size = Integer.parseInt(line(in).split(';')(0).trim, 16)
      while line(in).nonEmpty do ()
    else skip(in, length)
    Response(status, retryAfter, close)

  private def line(in: InputStream): String =
    val sb = StringBuilder()
    var c = in.read()
    while c != '\n' do
      if c < 0 then throw java.io.EOFException("connection closed before the answer")
      if c != '\r' then sb.append(c.toChar)
      c = in.read()
    sb.toString

  private def skip(in: InputStream, n: Long): Unit =
    var left = n
    while left > 0 do
      val s = in.skip(left)
      if s <= 0 then
        if in.read() < 0 then throw java.io.EOFException("connection closed in the body") else left -= 1
      else left -= s

  /** A virtual thread on JDK 21+ (through reflection: the lab compiles for 17), else a platform thread. */
  def startThread(name: String, body: Runnable): Thread =
    try
      val builder = classOf[Thread].getMethod("ofVirtual").invoke(null)
      val named = Class.forName("java.lang.Thread$Builder").getMethod("name", classOf[String]).invoke(builder, name)
      Class.forName("java.lang.Thread$Builder").getMethod("start", classOf[Runnable]).invoke(named, body)
        .asInstanceOf[Thread]
    catch
      case _: NoSuchMethodException | _: ClassNotFoundException =>
        val t = Thread(body, name)
        t.setDaemon(true)
        t.start()
        t
