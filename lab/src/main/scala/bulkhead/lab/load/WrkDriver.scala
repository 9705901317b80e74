package bulkhead.lab.load

import bulkhead.lab.model.{Answers, Latencies, LoadFigures, LoadSecond}
import bulkhead.lab.process.Children

import java.nio.file.{Files, Path}
import scala.concurrent.duration.*

/**
 * wrk's closed loop (seed 000's tool) with a Lua report (`wrk/answers.lua`): answers by status class and second, and
 * wrk's own latency histogram as 1,000 quantiles. wrk alone prints only "Non-2xx or 3xx responses", which let a run of
 * 99.98 % errors pass for throughput.
 */
final class WrkDriver(threads: Int, connections: Int, duration: FiniteDuration, timeout: FiniteDuration,
    closeEach: Boolean = false) extends LoadDriver:
  def concurrency: Int = connections
  def measuredSeconds: Double = duration.toMillis / 1000.0

  private def load(url: String) = WrkLoad(threads.min(connections), connections, duration, timeout, url, closeEach)

  def describe(url: String): String = load(url).describe

  def run(url: String, dir: Path): Either[String, LoadFigures] =
    LoadDriver.requireLoopback(url)
    Files.createDirectories(dir)
    val script = dir.resolve("answers.lua")
    Files.write(script, WrkDriver.script)
    val command = load(url).args.patch(1, Seq("-s", script.toString), 0)
    Children.runToCompletion(command, duration + timeout + 30.seconds).flatMap { raw =>
      Files.writeString(dir.resolve("wrk.txt"), raw)
      WrkDriver.parse(raw, load(url).describe)
    }

object WrkDriver:
  lazy val script: Array[Byte] =
    val in = getClass.getResourceAsStream("/wrk/answers.lua")
    try in.readAllBytes() finally in.close()

  private val AnswerLine = """^bulkhead-answers (\d+) (\d) (\d+)$""".r
  private val SummaryLine = """^bulkhead-summary (\d+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d+)$""".r
  private val LatencyLine = """^bulkhead-latency ([\d.]+) (\d+)$""".r
  private val MaxLine = """^bulkhead-latency-max (\d+)$""".r

  /** Reads wrk's output with the Lua report; a report without it (no script) is refused. */
  def parse(raw: String, description: String): Either[String, LoadFigures] =
    val lines = raw.linesIterator.map(_.trim).toVector
    val summary = lines.collectFirst { case SummaryLine(d, r, c, rd, w, _, t) =>
      (d.toLong, r.toLong, c.toLong, rd.toLong, w.toLong, t.toLong) }
    summary.toRight(s"wrk printed no bulkhead report: ${raw.linesIterator.take(3).mkString(" | ").take(300)}")
      .map { (durationMicros, _, connect, read, write, timeouts) =>
        val answers = lines.collect { case AnswerLine(sec, cls, n) => (sec.toLong, s"${cls}xx", n.toLong) }
        val start = answers.map(_._1).minOption.getOrElse(0L)
        val byClass = answers.groupMapReduce(_._2)(_._3)(_ + _)
        val seconds = answers.groupBy(_._1).toSeq.sortBy(_._1).map { (sec, rows) =>
          LoadSecond((sec - start).toInt, rows.groupMapReduce(_._2)(_._3)(_ + _), 0, None, None)
        }
        val header = WrkParser.parse(raw).toOption
        val quantiles = lines.collect { case LatencyLine(p, us) => p.toDouble -> us.toLong }
        val max = lines.collectFirst { case MaxLine(us) => us.toLong }.getOrElse(0L)
        val answered = byClass.values.sum
        LoadFigures("wrk", description, header.map(_.connections).getOrElse(0), durationMicros / 1e6,
          Answers(byClass, connect, read, write, timeouts), Latencies.fromQuantiles(quantiles, answered, max), seconds)
      }
