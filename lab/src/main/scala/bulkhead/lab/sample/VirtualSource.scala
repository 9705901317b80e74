package bulkhead.lab.sample

import jdk.jfr.consumer.RecordingFile

import java.nio.file.Files
import java.time.Instant
import scala.collection.mutable
import scala.concurrent.duration.*
import scala.util.Try

/**
 * The safe source of one JVM's virtual threads over a run: a JFR recording ([[VirtualThreadEvents]]) opened once, at
 * the first sample that shows virtual threads, and read back every [[VirtualSource.Window]] into
 * [[VirtualThreadWaits]]. A sample's instant is settled once no wait covering it can still be unseen, or at most
 * [[VirtualSource.Horizon]] after it (longer waits are missed): its virtual threads in a recorded wait are read then,
 * and older waits are dropped, so that a long run keeps a minute or so of events. A recording that cannot start is
 * said in the run's source, and the samples keep their platform threads.
 */
final class VirtualSource(events: () => VirtualThreadEvents):
  private val waits = VirtualThreadWaits()
  @volatile private var recording: Option[VirtualThreadEvents] = None
  @volatile private var error: Option[String] = None
  @volatile private var from: Option[Double] = None
  private var collected = Option.empty[Instant]
  private val pending = mutable.SortedSet.empty[Long]
  private val settled = mutable.Map.empty[Long, (DumpReading, Option[Int])]

  /** Opens the recording at `second`, unless it is open or failed already. */
  def open(second: Double): Unit = synchronized {
    if recording.isEmpty && error.isEmpty then
      val e = events()
      e.start() match
        case Right(_) =>
          recording = Some(e)
          from = Some(second)
          collected = Some(Instant.now())
        case Left(why) => error = Some(why)
  }

  /** A sample taken at `atNanos` (epoch nanoseconds): to settle; the recording is read back when it is due. */
  def sampled(atNanos: Long): Unit = synchronized {
    if recording.nonEmpty then
      pending += atNanos
      if collected.forall(c => java.time.Duration.between(c, Instant.now()).toMillis >= VirtualSource.Window.toMillis)
      then collect(settleBefore = VirtualSource.nowNanos - VirtualSource.Horizon.toNanos)
  }

  /** Reads the recording back a last time, stops it, and settles every sample. */
  def close(): Unit = synchronized {
    recording.foreach { _ =>
      collect(settleBefore = Long.MaxValue)
      recording.foreach(_.stop())
    }
    recording = None
  }

  /** `sample` with the virtual threads in a recorded wait at `atNanos`, and those alive then when counted. */
  def complete(sample: Sample, atNanos: Long): Sample = synchronized {
    settled.get(atNanos).fold(sample)((r, alive) =>
      sample.copy(pools = sample.pools ++ r.pools, resources = sample.resources ++ r.resources, virtualThreads = alive))
  }

  /** `platform`'s choice, with this source's state: opened at which second, or why it did not open. */
  def describe(platform: SamplingSource): SamplingSource =
    (error, from) match
      case (Some(why), _) if platform.virtual.nonEmpty =>
        platform.copy(virtual = None, reason = s"${platform.reason}; virtual threads unseen: $why")
      case (_, Some(second)) => platform.copy(virtualFrom = Some(second))
      case _ => platform

  private def collect(settleBefore: Long): Unit =
    for
      r <- recording
      since <- collected
    do
      val now = Instant.now()
      r.collect(since.minusMillis(VirtualSource.Overlap.toMillis)) match
        case Right(file) =>
          try Try(RecordingFile.readAllEvents(file).forEach(e => waits.add(e)))
          finally Files.deleteIfExists(file)
          collected = Some(now)
        case Left(why) => if error.isEmpty then error = Some(why)
      val due = pending.filter(_ < settleBefore)
      due.foreach(at => settled(at) = (waits.readingAt(at), waits.aliveAt(at)))
      pending --= due
      waits.dropEndedBefore(pending.headOption.getOrElse(VirtualSource.nowNanos) - VirtualSource.Horizon.toNanos)

object VirtualSource:
  /** How often the recording is read back. */
  val Window: FiniteDuration = 20.seconds
  /** The longest wait a sample's instant is waited for: a longer one covering it is missed. */
  val Horizon: FiniteDuration = 20.seconds
  /** Each read-back starts this much before the last ended: events written late are not lost between two. */
  val Overlap: FiniteDuration = 5.seconds

  def nowNanos: Long =
    val i = java.time.Instant.now()
    i.getEpochSecond * 1_000_000_000L + i.getNano
