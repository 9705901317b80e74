package bulkhead.lab.sample

import java.nio.file.Path
import java.time.Instant
import scala.concurrent.duration.*

/**
 * A JFR recording of a JVM's virtual-thread events, kept while it is sampled: started by the lab in the JVM with only
 * the events it reads ([[VirtualThreadEvents.Settings]]), read back as recording files of the last minute or so, and
 * stopped at the end. Nothing in it stops a thread: each event is written by the thread that waited, when its wait
 * ends. Read back as whole files rather than streamed: JDK 25's stream of a running recording leaves most virtual
 * threads' events without their thread, which a finished file resolves. [[AttachRecording]] reaches a JVM of this host
 * through the attach API; [[JmxRecording]] one over JMX.
 */
trait VirtualThreadEvents:
  /** Starts the recording; Left with why it could not. */
  def start(): Either[String, Unit]
  /** The events recorded from `since` on, as a recording file of this host, which the caller deletes. */
  def collect(since: Instant): Either[String, Path]
  /** Stops the recording in the JVM and removes what it kept. */
  def stop(): Unit

object VirtualThreadEvents:
  /** The recording's name in the JVM (what `jcmd <pid> JFR.check` lists while the lab samples). */
  def recordingName: String = s"bulkhead-lab-${ProcessHandle.current().pid()}"

  /**
   * Each event and its settings: waits of at least [[VirtualWait.ThresholdMs]] with their stack, and virtual threads'
   * starts and ends without one.
   */
  val Settings: Seq[(String, Map[String, String])] =
    VirtualWait.Events.keys.toSeq.sorted.map(_ -> Map("enabled" -> "true",
      "threshold" -> s"${VirtualWait.ThresholdMs} ms", "stackTrace" -> "true")) ++
      Seq(VirtualWait.Start, VirtualWait.End).map(_ -> Map("enabled" -> "true", "stackTrace" -> "false"))

  /** How long the recording keeps its data in the JVM's repository, and at most how much of it. */
  val MaxAge: FiniteDuration = 2.minutes
  val MaxSizeMb = 64
