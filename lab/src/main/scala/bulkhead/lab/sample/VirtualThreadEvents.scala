package bulkhead.lab.sample

import scala.concurrent.duration.*

/**
 * JFR events of a JVM's virtual threads, streamed while it is sampled: a recording the lab starts in the JVM with only
 * the events it reads ([[VirtualThreadEvents.Settings]]), consumed as it is written, and stopped at the end. Nothing in
 * it stops a thread: each event is written by the thread that waited, when its wait ends. [[RepositoryEvents]] reads a
 * JVM of this host through the attach API; [[RemoteEvents]] one over JMX.
 */
trait VirtualThreadEvents:
  /** Starts the recording and the stream into `waits`; Left with why it could not. */
  def start(waits: VirtualThreadWaits): Either[String, Unit]
  /** Waits for the last events to arrive, then stops the recording in the JVM and the stream. */
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

  /** JFR writes what it recorded to its stream once a second: the last events arrive within this after the end. */
  val Lag: FiniteDuration = 2500.millis
