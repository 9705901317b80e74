package bulkhead.lab.sample

import bulkhead.lab.model.MetricsReading
import jdk.jfr.consumer.{RecordedEvent, RecordedFrame, RecordedThread, RecordingFile}

import java.io.IOException
import java.nio.file.{Files, Path}
import java.time.Instant
import scala.jdk.CollectionConverters.*
import scala.util.Try

/**
 * A JFR recording read as a series of thread dumps, so that the waits it recorded go through the same readers as a
 * jstack series ([[WaitGraph]], [[PoolSample]]). JFR writes a wait as one event when it ends, with its start, its
 * duration, its thread and its stack: `jdk.JavaMonitorEnter` (BLOCKED on a monitor, with the monitor's class and
 * address and the thread that held it), `jdk.ThreadPark` (parked on a `java.util.concurrent` synchronizer: its class
 * and address), `jdk.JavaMonitorWait` (`Object.wait`), `jdk.ThreadSleep`, `jdk.SocketRead` (a blocking read from a
 * remote address); `jdk.ExecutionSample` samples the threads that run. At each instant of the series, a thread is in
 * the wait whose event spans it, else running where a sample of it falls within `every` of it; a thread neither
 * waiting nor sampled then is left out of that dump. Only waits longer than the recording's thresholds are events
 * (the lab's [[Settings]] record them from 10 ms), and a wait still going on when the recording
 * stopped has no event: the instants are taken from the recording's middle, `Margin` of its span from either end.
 * `jdk.ThreadDump` events, where the recording has them, are whole dumps: their deadlocks are read.
 */
object JfrRecording:
  /** The share of the span left out at each end, where waits that began before or ended after it are missing. */
  val Margin = 0.1
  /** The recording settings the lab ships (a resource of its jar): only the events read here. */
  val Settings = "jfr/bulkhead-waits.jfc"
  /** Every file JFR writes starts with these bytes. */
  private val Magic = Array[Byte]('F', 'L', 'R', 0)

  /** The events read, by kind; the names as JFR gives them. */
  private val Waits = Set("jdk.JavaMonitorEnter", "jdk.ThreadPark", "jdk.JavaMonitorWait", "jdk.ThreadSleep",
    "jdk.SocketRead")
  private val Sample = "jdk.ExecutionSample"
  private val Dump = "jdk.ThreadDump"

  /** A JFR file, by its first bytes. */
  def isRecording(file: Path): Boolean =
    Files.isRegularFile(file) && Try {
      val in = Files.newInputStream(file)
      try in.readNBytes(4).sameElements(Magic) finally in.close()
    }.getOrElse(false)

  /** A recording read into timed dumps every `every` seconds over its middle; or why it cannot be read. */
  def read(file: Path, every: Double): Either[String, Seq[TimedDump]] =
    if !isRecording(file) then Left(s"not a JFR recording (a .jfr file starts with FLR): $file")
    else
      Try(RecordingFile.readAllEvents(file).asScala.toVector).toEither.left.map {
        case e: IOException => s"cannot read the JFR recording $file: ${e.getMessage}"
        case e => s"cannot read the JFR recording $file: $e"
      }.flatMap(events => dumps(events, every).left.map(e => s"$file: $e"))

  /** One thread's wait or sample, as a span of time and what a dump would show of it. */
  private final case class Seen(thread: RecordedThread, from: Instant, to: Instant, state: String,
      frames: Seq[String], blockedOn: Option[String] = None, waitingOn: Option[String] = None,
      waitingOnIdentity: Option[String] = None, heldBy: Option[RecordedThread] = None):
    def key: Long = JfrRecording.key(thread)

  private def dumps(events: Vector[RecordedEvent], every: Double): Either[String, Seq[TimedDump]] =
    val waits = events.filter(e => Waits(e.getEventType.getName)).flatMap(wait)
    val samples = events.filter(_.getEventType.getName == Sample).flatMap(sample)
    val full = events.filter(_.getEventType.getName == Dump).flatMap(e => Option(e.getString("result")))
      .map(ThreadDump.parse)
    val all = waits ++ samples
    if all.isEmpty then
      Left(s"no waits or execution samples in it: record with the settings of $Settings (the events " +
        "jdk.JavaMonitorEnter, jdk.ThreadPark, jdk.SocketRead, jdk.ExecutionSample)")
    else
      val start = all.map(_.from).min
      val end = all.map(_.to).max
      val span = (end.toEpochMilli - start.toEpochMilli) / 1000.0
      val step = every.max(0.001)
      val from = span * Margin
      val instants = Iterator.iterate(from)(_ + step).takeWhile(_ <= span - from).toVector
      val byThread = all.groupBy(_.key)
      val deadlocks = full.flatMap(_.deadlocks).distinct
      Right(instants.map { second =>
        val instant = start.plusNanos((second * 1e9).toLong)
        val seen = byThread.values.flatMap(spans => doing(spans, instant, step)).toSeq
        // A monitor's waiter names the thread that held it: that thread holds it in the same dump.
        val holding = seen.flatMap(s => s.heldBy.map(JfrRecording.key).zip(s.blockedOn)).groupMap(_._1)(_._2)
        val threads = seen.map(s => DumpedThread(name(s.thread), s.state, s.frames, s.waitingOn,
          holding.getOrElse(s.key, Nil).distinct, s.blockedOn, virtual = virtual(s.thread),
          container = Option.when(virtual(s.thread))("<jfr>"), waitingOnIdentity = s.waitingOnIdentity))
        TimedDump(second - from, ThreadDump(threads, deadlocks))
      })

  /** What a thread did at `at`: the wait that spans it, else its sample nearest to it, within half a `step`. */
  private def doing(spans: Seq[Seen], at: Instant, step: Double): Option[Seen] =
    spans.find(s => s.from != s.to && !s.from.isAfter(at) && s.to.isAfter(at)).orElse {
      val near = (step * 1e9 / 2).toLong
      spans.filter(s => s.from == s.to).map(s => s -> math.abs(java.time.Duration.between(s.from, at).toNanos))
        .filter(_._2 <= near).minByOption(_._2).map(_._1)
    }

  private def wait(e: RecordedEvent): Option[Seen] =
    Option(e.getThread).map { t =>
      val frames = framesOf(e)
      val address = Try(e.getLong("address")).toOption.filter(_ != 0).map(a => f"0x$a%016x")
      def className(field: String) = Try(Option(e.getClass(field)).map(_.getName)).toOption.flatten
      e.getEventType.getName match
        case "jdk.JavaMonitorEnter" =>
          val cls = className("monitorClass").getOrElse("java.lang.Object")
          Seen(t, e.getStartTime, e.getEndTime, "BLOCKED", frames,
            blockedOn = Some(s"${address.getOrElse("0x0")} ($cls)"),
            heldBy = Try(Option(e.getThread("previousOwner"))).toOption.flatten)
        case "jdk.ThreadPark" =>
          val cls = className("parkedClass")
          Seen(t, e.getStartTime, e.getEndTime, "WAITING", parked(frames, "jdk.internal.misc.Unsafe.park"),
            waitingOn = cls, waitingOnIdentity = address)
        case "jdk.JavaMonitorWait" =>
          Seen(t, e.getStartTime, e.getEndTime, "WAITING", parked(frames, "java.lang.Object.wait0"),
            waitingOn = className("monitorClass"), waitingOnIdentity = address)
        case "jdk.ThreadSleep" =>
          Seen(t, e.getStartTime, e.getEndTime, "TIMED_WAITING", parked(frames, "java.lang.Thread.sleep0"))
        case _ =>
          // A socket read: its stack is inside the JDK's socket classes, as a dump shows it.
          Seen(t, e.getStartTime, e.getEndTime, "RUNNABLE", parked(frames, "sun.nio.ch.SocketDispatcher.read0"))
    }

  private def sample(e: RecordedEvent): Option[Seen] =
    Try(Option(e.getThread("sampledThread"))).toOption.flatten.map(t =>
      Seen(t, e.getStartTime, e.getStartTime, "RUNNABLE", framesOf(e)))

  /** The frames of a wait: JFR's stack starts below the JDK's own waiting frame on some JDKs; it is put back on top. */
  private def parked(frames: Seq[String], top: String): Seq[String] =
    if frames.headOption.exists(_.startsWith(top)) then frames else s"$top(Native Method)" +: frames

  private def framesOf(e: RecordedEvent): Seq[String] =
    Option(e.getStackTrace).fold(Seq.empty[String])(_.getFrames.asScala.toSeq.map(frame))

  /** `com.zaxxer.hikari.pool.HikariPool.getConnection(line: 162)`: a dump's frame, without its file name. */
  private def frame(f: RecordedFrame): String =
    val m = f.getMethod
    val where = if f.getLineNumber > 0 then s"line: ${f.getLineNumber}" else f.getType
    s"${m.getType.getName}.${m.getName}($where)"

  private def key(t: RecordedThread): Long = if t.getJavaThreadId > 0 then t.getJavaThreadId else t.getId

  private def name(t: RecordedThread): String = Option(t.getJavaName).getOrElse(Option(t.getOSName).getOrElse(""))

  /** `RecordedThread.isVirtual` came with JDK 21; the lab runs on 17 too. */
  private def virtual(t: RecordedThread): Boolean =
    Try(classOf[RecordedThread].getMethod("isVirtual").invoke(t).asInstanceOf[Boolean]).getOrElse(false)

/**
 * A thread dump and when it was taken, in seconds from the first of its series, with the service's meters scraped
 * beside it when there was a scrape.
 */
final case class TimedDump(second: Double, dump: ThreadDump, metrics: Option[MetricsReading] = None)
