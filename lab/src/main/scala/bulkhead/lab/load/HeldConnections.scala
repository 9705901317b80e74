package bulkhead.lab.load

import bulkhead.lab.record.{RequestLog, RequestOutcome}

import java.io.{BufferedInputStream, IOException}
import java.lang.management.ManagementFactory
import java.net.{InetSocketAddress, Socket, SocketTimeoutException}
import java.nio.charset.StandardCharsets.US_ASCII
import java.util.concurrent.{ConcurrentHashMap, CountDownLatch, Semaphore, TimeUnit}
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*

/** How a held connection keeps its slot in the server. */
enum Holding:
  /** One request, its answer read, then the connection stays open and silent: an idle keep-alive client. */
  case Idle(path: String)
  /** A request head begun and never finished, one more header byte every `every`: a slow-header client. */
  case SlowHeader(every: FiniteDuration)

/**
 * Connections to 127.0.0.1 held open at once to take a server's connection slots (connection exhaustion, slowloris).
 * Opened on virtual threads at a paced rate; an idle holder's request and its answer go to the request log under `name`
 * (a holder above the server's limit is answered 503 and closed by the server: its slot is released). `close`
 * closes every connection; a held connection has no request in flight, so closing abandons none.
 */
final class HeldConnections private (name: String, port: Int, holding: Holding, log: RequestLog):
  private val sockets = ConcurrentHashMap.newKeySet[Socket]()
  @volatile private var active = true

  /** Connections held now. */
  def held: Int = sockets.size

  private def openOne(): Unit =
    val start = System.nanoTime()
    val s = Socket()
    try
      s.setSoTimeout(10_000)
      s.connect(InetSocketAddress("127.0.0.1", port), 5000)
      holding match
        case Holding.Idle(path) =>
          s.getOutputStream.write(s"GET $path HTTP/1.1\r\nHost: 127.0.0.1:$port\r\n\r\n".getBytes(US_ASCII))
          val answer = ClosedLoopUsers.readResponse(BufferedInputStream(s.getInputStream, 4096))
          log.record(name, start, RequestOutcome.Status(answer.status), answer.retryAfter)
          if answer.close then s.close() else sockets.add(s)
        case Holding.SlowHeader(_) =>
          s.getOutputStream.write(s"GET /hello HTTP/1.1\r\nHost: 127.0.0.1:$port\r\nX-Slow: ".getBytes(US_ASCII))
          sockets.add(s)
    catch
      case _: SocketTimeoutException =>
        if holding.isInstanceOf[Holding.Idle] then log.record(name, start, RequestOutcome.Timeout, None)
        s.close()
      case e: IOException =>
        if holding.isInstanceOf[Holding.Idle] then
          log.record(name, start,
            if e.isInstanceOf[java.io.EOFException] then RequestOutcome.Closed else RequestOutcome.Reset, None)
        s.close()

  /** One header byte to each slow-header connection; those the server closed are released. */
  private def trickle(): Unit =
    sockets.asScala.foreach { s =>
      try
        s.getOutputStream.write('a'.toInt)
        s.getOutputStream.flush()
      catch
        case _: IOException =>
          sockets.remove(s)
          s.close()
    }

  /** Closes every held connection, at most `perSecond` a second (see [[HeldConnections.open]]); returns when done. */
  def close(perSecond: Int = HeldConnections.ClosingRate): Unit =
    active = false
    val start = System.nanoTime()
    sockets.asScala.toSeq.zipWithIndex.foreach { (s, i) =>
      HeldConnections.pace(start, i, perSecond)
      try s.close() catch case _: IOException => ()
    }
    sockets.clear()

  /** Starts closing every held connection (as [[close]]) and returns at once: the thread ends when all are closed. */
  def closeInBackground(perSecond: Int = HeldConnections.ClosingRate): Thread =
    val closer = Thread(() => close(perSecond), s"lab-$name-close")
    closer.setDaemon(true)
    closer.start()
    closer

object HeldConnections:
  /** Connections being opened at once: enough to fill a server's accept queues, few enough not to overflow them. */
  private val Opening = 256
  /**
   * Connections opened, and closed, a second. A server spends ~0.5 ms of CPU to set a connection up and some to tear
   * it down: 16,000 at once take both cores of this machine for seconds (closed at 5,000 a second, the steady users
   * beside them got no answer for a second and slow ones for three). Paced, the server keeps a core for its other
   * clients; the fault is the slots taken, not a CPU storm.
   */
  val OpeningRate = 2000
  val ClosingRate = 2000

  private def pace(start: Long, i: Int, perSecond: Int): Unit =
    val due = start + i * 1_000_000_000L / perSecond
    val wait = (due - System.nanoTime()) / 1_000_000
    if wait > 0 then Thread.sleep(wait)

  /**
   * Opens `count` connections and returns once each is held, refused or failed (at most `limit`). Refuses to start
   * when this process may not open that many files.
   */
  def open(name: String, count: Int, port: Int, holding: Holding, log: RequestLog,
      perSecond: Int = OpeningRate, limit: FiniteDuration = 90.seconds): HeldConnections =
    ManagementFactory.getOperatingSystemMXBean match
      case os: com.sun.management.UnixOperatingSystemMXBean =>
        val free = os.getMaxFileDescriptorCount - os.getOpenFileDescriptorCount
        require(free > count + 512, s"holding $count connections needs ${count + 512} free file descriptors; this " +
          s"process has $free (ulimit -n ${os.getMaxFileDescriptorCount})")
      case _ =>
    val held = HeldConnections(name, port, holding, log)
    val permits = Semaphore(Opening)
    val done = CountDownLatch(count)
    val start = System.nanoTime()
    (0 until count).foreach { i =>
      pace(start, i, perSecond)
      permits.acquire()
      ClosedLoopUsers.startThread(s"lab-$name-$i", () =>
        try held.openOne()
        finally
          permits.release()
          done.countDown())
    }
    done.await(limit.toMillis, TimeUnit.MILLISECONDS)
    holding match
      case Holding.SlowHeader(every) =>
        val trickler = Thread(() =>
          while held.active do
            held.trickle()
            Thread.sleep(every.toMillis)
        , s"lab-$name-trickle")
        trickler.setDaemon(true)
        trickler.start()
      case Holding.Idle(_) =>
    held
