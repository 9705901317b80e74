package bulkhead.lab.sample

import jdk.management.jfr.FlightRecorderMXBean

import java.lang.management.ManagementFactory
import java.nio.file.{Files, Path}
import java.time.Instant
import javax.management.MBeanServerConnection
import scala.jdk.CollectionConverters.*
import scala.util.Try

/**
 * The virtual-thread recording of a JVM reached over JMX, through its `FlightRecorderMXBean`: a recording with only
 * the lab's events, kept at most [[VirtualThreadEvents.MaxAge]], whose data from a given instant is copied to a file
 * of this host (a stopped clone of it read with `openStream`, `readStream`, then closed), and closed at the end. The JMX user needs readwrite access, as for thread
 * dumps.
 */
final class JmxRecording(server: MBeanServerConnection) extends VirtualThreadEvents:
  private lazy val recorder = ManagementFactory.getPlatformMXBean(server, classOf[FlightRecorderMXBean])
  @volatile private var id = Option.empty[Long]

  def start(): Either[String, Unit] =
    Try {
      val r = recorder.newRecording()
      recorder.setRecordingOptions(r, Map("name" -> VirtualThreadEvents.recordingName, "disk" -> "true",
        "maxAge" -> s"${VirtualThreadEvents.MaxAge.toSeconds} s",
        "maxSize" -> (VirtualThreadEvents.MaxSizeMb * 1024L * 1024L).toString).asJava)
      recorder.setRecordingSettings(r, VirtualThreadEvents.Settings.flatMap((event, settings) =>
        settings.map((k, v) => s"$event#$k" -> v)).toMap.asJava)
      recorder.startRecording(r)
      id = Some(r)
    }.toEither.left.map(e => s"JFR over JMX failed: ${JmxConnection.reason(e)}")

  /** A running recording cannot be read: a stopped copy of it is, then closed. */
  def collect(since: Instant): Either[String, Path] =
    id.toRight("no recording").flatMap(r => Try {
      val file = Files.createTempFile("bulkhead-lab-jmx-", ".jfr")
      // The caller deletes the file it is given; one that was not filled goes here.
      try
        val copy = recorder.cloneRecording(r, true)
        try
          val stream = recorder.openStream(copy, Map("startTime" -> since.toString).asJava)
          val out = Files.newOutputStream(file)
          try Iterator.continually(recorder.readStream(stream)).takeWhile(_ != null).foreach(out.write)
          finally
            out.close()
            recorder.closeStream(stream)
        finally recorder.closeRecording(copy)
        file
      catch
        case e: Exception =>
          Files.deleteIfExists(file)
          throw e
    }.toEither.left.map(e => s"reading the JFR recording over JMX failed: ${JmxConnection.reason(e)}"))

  def stop(): Unit =
    id.foreach(r => Try(recorder.closeRecording(r)))
    id = None
