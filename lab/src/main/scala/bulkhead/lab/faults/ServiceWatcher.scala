package bulkhead.lab.faults

import bulkhead.lab.load.ClosedLoopUsers
import bulkhead.lab.record.{LabPause, ServiceWatch, WatchSecond}

import java.io.{BufferedInputStream, IOException, InputStream}
import java.net.{InetSocketAddress, Socket}
import java.nio.charset.StandardCharsets.US_ASCII
import java.nio.file.{Files, Path}
import scala.collection.mutable
import scala.util.Try

/**
 * Watches a service from outside for the length of a fault run, as an operator's probe would: GET /health every
 * [[ServiceWatcher.ProbeEvery]] on its own keep-alive connection (opened before any fault, so a fault that takes every
 * connection slot is measured on what the service does, not on whether a newcomer gets in), and once a second the
 * service's open file descriptors (/proc) and its log's size. `t0Nanos` is the run's clock (its request log's).
 * What the lab itself does to the service (a full GC to read its heap) is done through [[pausedByLab]]: a probe it
 * held is kept apart, so that the promise is measured on the service, not on the lab's own pause.
 */
final class ServiceWatcher(port: Int, pid: Long, log: Path, t0Nanos: Long):
  import ServiceWatcher.*
  private val logBefore = logSize(log)
  private val descriptorsBefore = descriptors(pid)
  private val probes = mutable.ArrayBuffer[Probe]()
  // Each pause's start and end (System.nanoTime); a pause in progress ends at Long.MaxValue.
  private val pauses = mutable.ArrayBuffer[(Long, Long, String)]()
  private val gauges = mutable.Map[Int, (Option[Int], Option[Long])]()
  @volatile private var running = true
  private val thread = Thread(() => watch(), "lab-service-watch")
  thread.setDaemon(true)
  thread.start()

  private def second: Int = ((System.nanoTime() - t0Nanos) / 1_000_000_000L).toInt

  private def watch(): Unit =
    var socket: Socket = null
    var in: InputStream = null
    var lastGauge = -1
    while running do
      val start = System.nanoTime()
      try
        if socket == null then
          socket = Socket()
          socket.setTcpNoDelay(true)
          socket.setSoTimeout(ProbeTimeoutMs)
          socket.connect(InetSocketAddress("127.0.0.1", port), ProbeTimeoutMs)
          in = BufferedInputStream(socket.getInputStream, 4096)
        socket.getOutputStream.write(s"GET /health HTTP/1.1\r\nHost: 127.0.0.1:$port\r\n\r\n".getBytes(US_ASCII))
        val answer = ClosedLoopUsers.readResponse(in)
        record(start, answer.status == 200)
        if answer.close then socket = close(socket)
      catch
        case _: IOException =>
          record(start, false)
          socket = close(socket)
      val now = second
      if now != lastGauge then
        lastGauge = now
        synchronized(gauges(now) = (descriptors(pid), Some(logSize(log))))
      val wait = ProbeEvery - (System.nanoTime() - start) / 1_000_000
      if wait > 0 then Thread.sleep(wait)
    if socket != null then close(socket)

  /** Stops the probes (a run that failed: nothing to return). */
  def stopNow(): Unit =
    running = false
    thread.join(ProbeTimeoutMs + 1000L)

  /** Runs `body`, a pause the lab puts on the service (`what` says which), and keeps the probes it held apart. */
  def pausedByLab[A](what: String)(body: => A): A =
    val start = System.nanoTime()
    val at = synchronized { pauses += ((start, Long.MaxValue, what)); pauses.size - 1 }
    try body finally synchronized(pauses(at) = (start, System.nanoTime(), what))

  private def record(start: Long, ok: Boolean): Unit =
    val end = System.nanoTime()
    synchronized {
      val paused = pauses.exists((from, to, _) => from < end && to > start)
      probes += Probe(second, ok, (end - start) / 1e6, paused)
    }

  private def close(s: Socket): Null =
    try s.close() catch case _: IOException => ()
    null

  /**
   * Stops watching and returns what was watched up to `endAt` (seconds of the run); the log's size and the
   * descriptors are read again now, `settle` after the caller closed its extra connections (the log is written
   * through an asynchronous appender: its last lines come a moment later).
   */
  def stop(endAt: Double): ServiceWatch =
    stopNow()
    Thread.sleep(Settle)
    val last = math.ceil(endAt).toInt
    val (byProbe, byGauge, byLab) = synchronized((probes.toSeq, gauges.toMap, pauses.toSeq))
    val seconds = (0 until last).map { s =>
      val in = byProbe.filter(_.second == s)
      val (paused, own) = in.partition(_.labPaused)
      val (d, l) = byGauge.getOrElse(s, (None, None))
      WatchSecond(s, in.size, in.count(_.ok), own.map(_.ms).maxOption.getOrElse(0.0), d, l, paused.size,
        paused.map(_.ms).maxOption.getOrElse(0.0))
    }
    def at(nanos: Long) = (nanos - t0Nanos) / 1e9
    ServiceWatch(seconds, logBefore, logSize(log), descriptorsBefore, descriptors(pid), ProbeEvery,
      byLab.map((from, to, what) => LabPause(at(from), at(to), what)))

object ServiceWatcher:
  private final case class Probe(second: Int, ok: Boolean, ms: Double, labPaused: Boolean)

  /** A probe every 250 ms: four a second, enough to see a stall of a second, and nothing a service notices. */
  val ProbeEvery = 250L
  /** A probe not answered in 5 s has failed (it counts 5 s, past the 1 s promise). */
  val ProbeTimeoutMs = 5000
  private val Settle = 500L

  def logSize(log: Path): Long = Try(Files.size(log)).getOrElse(0L)

  /** The process's open file descriptors (entries of /proc/PID/fd), if readable. */
  def descriptors(pid: Long): Option[Int] =
    Try {
      val s = Files.list(Path.of(s"/proc/$pid/fd"))
      try s.count().toInt finally s.close()
    }.toOption
