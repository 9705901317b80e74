package bulkhead.lab.record

import java.nio.file.{Files, Path}
import scala.jdk.CollectionConverters.*

/**
 * The warnings and errors of a service log (logback's `HH:mm:ss.SSS LEVEL [thread] logger - message`), grouped with
 * numbers, addresses and thread names masked, most frequent first: the cause the diagnosis can quote beside errors.
 */
object ServiceLog:
  private val Line = """^\d\d:\d\d:\d\d\.\d+\s+(WARN|ERROR)\s+\[[^\]]*\]\s+(.*)$""".r

  def mask(message: String): String =
    message.replaceAll("""\b\d+(\.\d+)*\b""", "N").replaceAll("""@[0-9a-f]{4,}""", "@X").trim

  /** The logs of several processes (the nodes of a cluster) as one: counts of the same line added up. */
  def readAll(logs: Seq[Path], limit: Int = 10): Seq[LogLine] =
    logs.flatMap(read(_, Int.MaxValue)).groupMapReduce(_.text)(_.count)(_ + _).toSeq
      .sortBy((text, n) => (-n, text)).take(limit).map((text, n) => LogLine(text, n))

  def read(log: Path, limit: Int = 10): Seq[LogLine] =
    if !Files.isReadable(log) then Nil
    else
      val lines = Files.lines(log)
      try
        lines.iterator().asScala.collect { case Line(level, message) => s"$level ${mask(message)}" }.toSeq
          .groupMapReduce(identity)(_ => 1)(_ + _).toSeq.sortBy((text, n) => (-n, text)).take(limit)
          .map((text, n) => LogLine(text, n))
      finally lines.close()
