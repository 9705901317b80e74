package bulkhead.lab.load

import bulkhead.lab.process.Children

import scala.concurrent.duration.*

/**
 * A closed-loop load: each of `connections` sends a request, waits for the answer, sends the next (seed 000). With
 * `closeEach` every request says `Connection: close`: the server closes after each answer and wrk connects again, so
 * every request pays for a fresh connection (accept, set-up, close).
 */
final case class WrkLoad(threads: Int, connections: Int, duration: FiniteDuration, timeout: FiniteDuration,
    url: String, closeEach: Boolean = false):
  require(url.startsWith("http://") || url.startsWith("https://"), s"wrk loads an http:// or https:// URL: $url")
  require(connections >= threads, s"wrk needs at least one connection per thread ($connections < $threads)")

  def args: Seq[String] = Seq("wrk", s"-t$threads", s"-c$connections", s"-d${duration.toSeconds}s",
    s"--timeout", s"${timeout.toSeconds}s", "--latency") ++
    (if closeEach then Seq("-H", "Connection: close") else Nil) :+ url

  def describe: String = args.mkString(" ")

/** Runs wrk as a child process and parses its report. */
object Wrk:
  def run(load: WrkLoad): Either[String, (WrkResult, String)] =
    val out = Children.runToCompletion(load.args, load.duration + load.timeout + 30.seconds)
    out.flatMap(text => WrkParser.parse(text).map(_ -> text))
