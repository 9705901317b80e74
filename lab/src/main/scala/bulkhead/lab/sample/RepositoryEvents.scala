package bulkhead.lab.sample

import jdk.jfr.consumer.EventStream

import java.nio.file.{Files, Path}
import scala.util.Try

/**
 * The virtual-thread events of a JVM of this host: `jcmd <pid> JFR.start` through the attach API with only the lab's
 * events (`settings=none`), then the JVM's own disk repository (`JFR.configure` names it, under the JVM's temporary
 * directory) read by `EventStream.openRepository` as the JVM writes it; `JFR.stop` at the end.
 */
final class RepositoryEvents(pid: Long) extends VirtualThreadEvents:
  private val name = VirtualThreadEvents.recordingName
  @volatile private var stream: Option[EventStream] = None

  def start(waits: VirtualThreadWaits): Either[String, Unit] =
    val events = VirtualThreadEvents.Settings.flatMap((event, settings) =>
      settings.map((k, v) => s"+$event#$k=${v.replace(" ", "")}"))
    for
      started <- Attach.jcmd(pid, (Seq(s"JFR.start name=$name settings=none disk=true",
          s"maxage=${VirtualThreadEvents.MaxAge.toSeconds}s maxsize=${VirtualThreadEvents.MaxSizeMb}m") ++ events)
          .mkString(" "))
      _ <- Either.cond(started.contains("Started recording"), (), s"JFR.start refused: ${started.trim.take(200)}")
      configured <- Attach.jcmd(pid, "JFR.configure")
      repository <- RepositoryEvents.repository(pid, configured)
      opened <- Try(EventStream.openRepository(repository)).toEither.left.map(e => s"cannot read $repository: $e")
    yield
      opened.setReuse(false)
      opened.onEvent(e => waits.add(e))
      opened.startAsync()
      stream = Some(opened)

  def stop(): Unit =
    stream.foreach { s =>
      Thread.sleep(VirtualThreadEvents.Lag.toMillis)
      s.close()
    }
    stream = None
    Attach.jcmd(pid, s"JFR.stop name=$name")

object RepositoryEvents:
  private val Repository = """(?m)^Repository path: (\S+)""".r

  /** The repository `JFR.configure` names, reached through /proc when the JVM's root is not this one (a container). */
  def repository(pid: Long, configured: String): Either[String, Path] =
    Repository.findFirstMatchIn(configured).map(_.group(1)).filter(_ != "N/A").toRight(
      s"JFR.configure names no repository: ${configured.trim.take(200)}").flatMap { p =>
        Seq(Path.of(p), Path.of(s"/proc/$pid/root$p")).find(Files.isDirectory(_))
          .toRight(s"the JVM's JFR repository $p is not readable here")
      }
