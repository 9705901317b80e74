package bulkhead.lab.sample

import bulkhead.lab.model.MetricsReading

import java.nio.file.{Files, Path}
import java.time.{Instant, LocalDateTime, ZoneOffset}
import scala.jdk.CollectionConverters.*
import scala.util.Try

/**
 * Evidence taken from a JVM without the lab, read into timed dumps: one thread dump or a series of them (files given
 * in order, or a folder's files by name), each a `jcmd <pid> Thread.print -l` (or jstack) text dump or a
 * `jcmd <pid> Thread.dump_to_file -format=json` dump (with virtual threads); or one JFR recording ([[JfrRecording]]).
 * Each file's kind is read from its content, not its name. A dump's time is the one it states (a text dump's
 * `yyyy-MM-dd HH:mm:ss` line, a JSON dump's `time`), counted from the first; a series in which a dump states none
 * is spaced a second apart. A scrape of the service's Prometheus meters among them (`curl .../metrics > m-1.txt`,
 * taken beside a dump) goes with the dump before it in order: the meters' figures of that instant.
 */
object DumpFiles:
  /** A text dump's time line, as jcmd and jstack print it under the pid. */
  private val TextTime = """(?m)^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})$""".r
  private val JsonTime = """"time"\s*:\s*"([^"]+)"""".r

  /** The dumps of `paths` (files, or one folder), or the first one that cannot be read, named. */
  def read(paths: Seq[Path], jfrEvery: Double): Either[String, Seq[TimedDump]] =
    files(paths).flatMap { fs =>
      val recordings = fs.filter(JfrRecording.isRecording)
      if recordings.nonEmpty && fs.size > 1 then
        Left(s"a JFR recording is read on its own, not in a series with other files: ${recordings.head}")
      else if recordings.nonEmpty then JfrRecording.read(recordings.head, jfrEvery)
      else if fs.exists(_.getFileName.toString.endsWith(".jfr")) then
        // Named a recording, it is read as one: what is wrong with it is that it is not one.
        JfrRecording.read(fs.find(_.getFileName.toString.endsWith(".jfr")).get, jfrEvery)
      else
        val read = fs.map(f => evidence(f).map(f -> _))
        read.collectFirst { case Left(e) => e }.toLeft(read.collect { case Right(d) => d }).flatMap { all =>
          // Each scrape goes with the dump before it.
          val paired = all.foldLeft(Vector.empty[(Path, (Option[Instant], ThreadDump), Option[MetricsReading])]) {
            case (done, (f, Left(m))) if done.nonEmpty => done.init :+ done.last.copy(_3 = Some(m))
            case (done, (f, Left(_))) => done
            case (done, (f, Right(d))) => done :+ (f, d, None)
          }
          if paired.isEmpty then Left(s"no thread dump among ${fs.mkString(" ")}: only meters") else Right(timed(paired))
        }
    }

  /** A file of evidence: a dump, or a scrape of Prometheus meters. */
  private def evidence(file: Path): Either[String, Either[MetricsReading, (Option[Instant], ThreadDump)]] =
    Try(Files.readString(file)).toOption.filter(t => t.contains("# TYPE ") && MetricsReading.lines(t).nonEmpty)
      .map(t => Right(Left(MetricsReading.parse(t)))).getOrElse(dump(file).map(Right(_)))

  /** The files to read: the ones given, or a folder's (not hidden) by name; each one must exist. */
  def files(paths: Seq[Path]): Either[String, Seq[Path]] =
    paths match
      case Seq(dir) if Files.isDirectory(dir) =>
        val in = Try(Files.list(dir)).toEither.left.map(e => s"cannot list $dir: ${e.getMessage}").map(s =>
          try s.iterator.asScala.filter(p => Files.isRegularFile(p) && !p.getFileName.toString.startsWith("."))
            .toVector.sortBy(_.getFileName.toString)
          finally s.close())
        in.filterOrElse(_.nonEmpty, s"no file in $dir")
      case _ =>
        paths.find(p => !Files.isRegularFile(p)).map(p =>
          if Files.isDirectory(p) then s"a folder is read on its own, not with other files: $p" else s"no such file: $p")
          .toLeft(paths)

  /** One dump file, text or JSON, with the time it states. */
  def dump(file: Path): Either[String, (Option[Instant], ThreadDump)] =
    Try(Files.readString(file)).toEither.left.map(e => s"cannot read $file as text: ${e.getMessage}").flatMap { text =>
      val trimmed = text.dropWhile(_.isWhitespace)
      if trimmed.startsWith("{") then
        JsonThreadDump.parse(text).left.map(e => s"$file: $e")
          .map(d => (JsonTime.findFirstMatchIn(text).flatMap(m => Try(Instant.parse(m.group(1))).toOption), d))
      else
        val dump = ThreadDump.parse(text)
        if dump.threads.isEmpty then
          Left(s"not a thread dump: $file (jcmd <pid> Thread.print -l, jstack -l, jcmd <pid> Thread.dump_to_file " +
            "-format=json, or a JFR recording)")
        else Right((textTime(text), dump))
    }

  private def textTime(text: String): Option[Instant] =
    TextTime.findFirstMatchIn(text.take(4000)).flatMap(m => Try(LocalDateTime.parse(m.group(1).replace(' ', 'T'))
      .toInstant(ZoneOffset.UTC)).toOption)

  private def timed(dumps: Seq[(Path, (Option[Instant], ThreadDump), Option[MetricsReading])]): Seq[TimedDump] =
    val times = dumps.map(_._2._1)
    if times.forall(_.isDefined) then
      val t0 = times.flatten.map(_.toEpochMilli).min
      dumps.map { case (_, (t, d), m) => TimedDump((t.get.toEpochMilli - t0) / 1000.0, d, m) }.sortBy(_.second)
    else dumps.zipWithIndex.map { case ((_, (_, d), m), i) => TimedDump(i.toDouble, d, m) }
