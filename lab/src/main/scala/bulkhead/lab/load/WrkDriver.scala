package bulkhead.lab.load

import bulkhead.lab.model.{Answers, Latencies, LoadFigures, LoadSecond, RouteFigures}
import bulkhead.lab.process.Children

import java.nio.file.{Files, Path}
import scala.concurrent.duration.*

/**
 * wrk's closed loop (seed 000's tool) with a Lua script ([[WrkScript]]): the load's requests (method, headers, body,
 * one route per wrk thread), and the lab's report: answers by status class, second and route, and wrk's own latency
 * histogram as 1,000 quantiles. wrk alone prints only "Non-2xx or 3xx responses", which let a run of 99.98 % errors
 * pass for throughput. wrk connects to one `scheme://host:port` and never checks a certificate: several hosts are
 * refused here, and a certificate is checked before wrk starts unless the load is `insecure` ([[Tls]]).
 */
final class WrkDriver(threads: Int, connections: Int, duration: FiniteDuration, timeout: FiniteDuration,
    closeEach: Boolean = false) extends LoadDriver:
  def concurrency: Int = connections
  def measuredSeconds: Double = duration.toMillis / 1000.0

  /** wrk's threads and connections for `routes` routes: a thread per route at least, the same number of each. */
  private def shape(routes: Int): (Int, Int) =
    if routes <= 1 then (threads.min(connections), connections)
    else
      val t = math.ceil(threads.max(routes).toDouble / routes).toInt * routes
      (t, (connections / t).max(1) * t)

  private def load(requests: Requests) =
    val (t, c) = shape(requests.targets.size)
    WrkLoad(t, c, duration, timeout, requests.first.url.toString, closeEach)

  def describe(url: String): String = describe(Requests.get(url))
  override def describe(requests: Requests): String =
    load(requests).describe + (if requests.plainGet then "" else s" (${requests.describe})")

  def run(url: String, dir: Path): Either[String, LoadFigures] = run(Requests.get(url), dir)

  override def run(requests: Requests, dir: Path): Either[String, LoadFigures] =
    if !requests.oneOrigin then
      Left(s"wrk loads one host: the routes go to ${requests.targets.map(_.origin).distinct.mkString(", ")} " +
        "(load several hosts with the lab's own client or vegeta)")
    else
      Files.createDirectories(dir)
      val script = dir.resolve("requests.lua")
      Files.writeString(script, WrkScript(requests))
      val command = load(requests).args.patch(1, Seq("-s", script.toString), 0)
      for
        _ <- Tls.check(requests)
        raw <- Children.runToCompletion(command, duration + timeout + 30.seconds)
        _ = Files.writeString(dir.resolve("wrk.txt"), raw)
        figures <- WrkDriver.parse(raw, describe(requests), requests.targets.map(requests.route))
      yield figures

object WrkDriver:
  /** The lab's report, the end of every script wrk runs ([[WrkScript]]). */
  lazy val report: String =
    val in = getClass.getResourceAsStream("/wrk/answers.lua")
    try String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8) finally in.close()

  private val AnswerLine = """^bulkhead-answers (\d+) (\d) (\d+)$""".r
  private val RouteLine = """^bulkhead-route (\d+) (\d) (\d+)$""".r
  private val SummaryLine = """^bulkhead-summary (\d+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d+)$""".r
  private val LatencyLine = """^bulkhead-latency ([\d.]+) (\d+)$""".r
  private val MaxLine = """^bulkhead-latency-max (\d+)$""".r

  /**
   * Reads wrk's output with the Lua report; a report without it (no script) is refused. `routes` names the targets
   * the script numbered from 1 (two targets of one route are one); with more than one route, each one's answers are
   * kept.
   */
  def parse(raw: String, description: String, routes: Seq[String] = Nil): Either[String, LoadFigures] =
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
        val perRoute = lines.collect { case RouteLine(route, cls, n) => (route.toInt, s"${cls}xx", n.toLong) }
        val byRoute = if routes.distinct.size < 2 then Nil else routes.distinct.map { name =>
          RouteFigures(name, perRoute.filter((i, _, _) => routes.lift(i - 1).contains(name))
            .groupMapReduce(_._2)(_._3)(_ + _))
        }
        val header = WrkParser.parse(raw).toOption
        val quantiles = lines.collect { case LatencyLine(p, us) => p.toDouble -> us.toLong }
        val max = lines.collectFirst { case MaxLine(us) => us.toLong }.getOrElse(0L)
        val answered = byClass.values.sum
        LoadFigures("wrk", description, header.map(_.connections).getOrElse(0), durationMicros / 1e6,
          Answers(byClass, connect, read, write, timeouts), Latencies.fromQuantiles(quantiles, answered, max), seconds,
          byRoute)
      }
