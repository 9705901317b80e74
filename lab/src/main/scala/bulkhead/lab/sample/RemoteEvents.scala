package bulkhead.lab.sample

import jdk.management.jfr.RemoteRecordingStream

import javax.management.MBeanServerConnection
import scala.util.Try

/**
 * The virtual-thread events of a JVM reached over JMX: `RemoteRecordingStream` starts a recording in it through its
 * `FlightRecorderMXBean` with only the lab's events, and copies each chunk to this host as the JVM writes it (the JMX
 * user needs readwrite access, as for thread dumps). Closing the stream closes the recording.
 */
final class RemoteEvents(server: MBeanServerConnection) extends VirtualThreadEvents:
  @volatile private var stream: Option[RemoteRecordingStream] = None

  def start(waits: VirtualThreadWaits): Either[String, Unit] =
    Try {
      val s = RemoteRecordingStream(server)
      VirtualThreadEvents.Settings.foreach((event, settings) =>
        val enabled = s.enable(event)
        settings.foreach((k, v) => enabled.`with`(k, v)))
      s.setMaxAge(java.time.Duration.ofSeconds(VirtualThreadEvents.MaxAge.toSeconds))
      s.setMaxSize(VirtualThreadEvents.MaxSizeMb * 1024L * 1024L)
      s.setReuse(false)
      s.onEvent(e => waits.add(e))
      s.startAsync()
      stream = Some(s)
    }.toEither.left.map(e => s"JFR over JMX failed: ${JmxConnection.reason(e)}")

  def stop(): Unit =
    stream.foreach { s =>
      Thread.sleep(VirtualThreadEvents.Lag.toMillis)
      Try(s.close())
    }
    stream = None
