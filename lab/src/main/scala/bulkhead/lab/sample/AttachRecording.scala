package bulkhead.lab.sample

import java.nio.file.{Files, Path}
import java.time.Instant

/**
 * The virtual-thread recording of a JVM of this host, through the attach API: `jcmd <pid> JFR.start` with only the
 * lab's events (`settings=none`, kept at most [[VirtualThreadEvents.MaxAge]] in the JVM's disk repository),
 * `JFR.dump begin=...` into a file of the JVM's temporary directory, read here (through /proc when the JVM's root is
 * another, a container's) and removed, and `JFR.stop` at the end.
 */
final class AttachRecording(pid: Long) extends VirtualThreadEvents:
  private val name = VirtualThreadEvents.recordingName
  private var dumps = 0

  def start(): Either[String, Unit] =
    val events = VirtualThreadEvents.Settings.flatMap((event, settings) =>
      settings.map((k, v) => s"+$event#$k=${v.replace(" ", "")}"))
    Attach.jcmd(pid, (Seq(s"JFR.start name=$name settings=none disk=true",
        s"maxage=${VirtualThreadEvents.MaxAge.toSeconds}s maxsize=${VirtualThreadEvents.MaxSizeMb}m") ++ events)
        .mkString(" "))
      .flatMap(out => Either.cond(out.contains("Started recording"), (), s"JFR.start refused: ${out.trim.take(200)}"))

  def collect(since: Instant): Either[String, Path] = synchronized {
    dumps += 1
    val file = s"/tmp/$name-$pid-$dumps.jfr"
    Attach.jcmd(pid, s"JFR.dump name=$name filename=$file begin=$since").flatMap { out =>
      Seq(Path.of(file), Path.of(s"/proc/$pid/root$file")).find(Files.isRegularFile(_))
        .toRight(s"JFR.dump wrote no $file: ${out.trim.take(200)}")
    }
  }

  def stop(): Unit = Attach.jcmd(pid, s"JFR.stop name=$name")
