package bulkhead.lab.record

import java.io.BufferedReader
import java.nio.channels.{Channels, FileChannel}
import java.nio.charset.{CodingErrorAction, StandardCharsets}
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
  def readAll(logs: Seq[Path], limit: Int = 10): Seq[LogLine] = readSince(logs.map(_ -> 0L).toMap, limit)

  def read(log: Path, limit: Int = 10): Seq[LogLine] = readSince(Map(log -> 0L), limit)

  /** Where each log ends now (bytes): a run that starts now reads what comes after, as [[readSince]] does. */
  def ends(logs: Seq[Path]): Map[Path, Long] =
    logs.map(l => l -> (if Files.isReadable(l) then Files.size(l) else 0L)).toMap

  /**
   * The lines each log got past its offset (a service that served earlier runs: this run's lines only), counts of
   * the same line added up over the logs.
   */
  def readSince(from: Map[Path, Long], limit: Int = 10): Seq[LogLine] =
    from.toSeq.flatMap((log, offset) => lines(log, offset)).groupMapReduce(identity)(_ => 1)(_ + _).toSeq
      .sortBy((text, n) => (-n, text)).take(limit).map((text, n) => LogLine(text, n))

  private def lines(log: Path, offset: Long): Seq[String] =
    if !Files.isReadable(log) then Nil
    else
      val channel = FileChannel.open(log)
      try
        // An offset may fall inside a character of a line being written: replaced, not a failure.
        val utf8 = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
          .onUnmappableCharacter(CodingErrorAction.REPLACE)
        val reader = BufferedReader(Channels.newReader(channel.position(offset), utf8, -1))
        reader.lines().iterator().asScala.collect { case Line(level, message) => s"$level ${mask(message)}" }.toSeq
      finally channel.close()
