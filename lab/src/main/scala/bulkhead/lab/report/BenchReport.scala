package bulkhead.lab.report

import bulkhead.lab.{Bench, BenchCase, BenchRun}

/** The figures of a benchmark: medians over rounds, ratios to the Little's-law bound, and how they were measured. */
final case class BenchReport(suite: String, env: Environment, cases: Seq[BenchCase], runs: Seq[BenchRun],
    options: Bench.Options):

  private def median(xs: Seq[Double]): Double =
    val s = xs.filterNot(_.isNaN).sorted
    if s.isEmpty then Double.NaN
    else if s.size % 2 == 1 then s(s.size / 2)
    else (s(s.size / 2 - 1) + s(s.size / 2)) / 2

  private def row(c: BenchCase): Seq[String] =
    val rs = runs.filter(_.benchCase == c)
    val rps = median(rs.map(_.requestsPerSecond))
    val bound = c.bound.map(b => f"${b.perSecond}%.0f (${b.what})").getOrElse("CPU")
    val ratio = c.bound.map(b => f"${rps / b.perSecond}%.3f").getOrElse("-")
    val pools = rs.flatMap(_.poolPeaks).groupMapReduce(_._1)(_._2)(_ max _).filter(_._2 > 0)
      .toSeq.sortBy(_._1).map((k, v) => f"$k $v%.0f").mkString(", ")
    Seq(c.name, s"-c${c.connections} ${c.path}", f"$rps%.1f", rs.map(r => f"${r.requestsPerSecond}%.0f").mkString(" / "),
      bound, ratio, f"${median(rs.flatMap(_.p50Ms))}%.1f", f"${median(rs.flatMap(_.p99Ms))}%.1f",
      rs.map(_.socketErrors).sum.toString, rs.map(_.non2xx).sum.toString, rs.map(_.maxPlatformThreads).max.toString,
      f"${rs.map(_.maxResidentMb).max}%.0f", if pools.isEmpty then "-" else pools)

  private def describe(c: BenchCase): String =
    val heap = if c.target == bulkhead.lab.process.Target.Bulkhead then s", heap `${c.heap}`" else ""
    s"`${c.name}`: ${c.note}; ${c.target} with flags `${c.serviceArgs.mkString(" ")}`$heap"

  private val header = Seq("case", "load", "req/s (median)", "req/s per round", "Little's-law bound",
    "ratio to bound", "p50 ms", "p99 ms", "socket errors", "non-2xx", "platform threads (max)", "RSS MB (max)",
    "busy pool threads (peak)")

  def table: String =
    (Seq(header, header.map(_ => "---")) ++ cases.map(row)).map(_.mkString("| ", " | ", " |")).mkString("\n")

  /** Median req/s of a case over its rounds. */
  def medianOf(name: String): Double = median(runs.filter(_.benchCase.name == name).map(_.requestsPerSecond))

  /** bulkhead's median over each other case's (the /hello suite: to nginx, to an untuned Pekko HTTP). */
  def ratios: String =
    if !cases.exists(_.name == "bulkhead") || cases.size < 2 then ""
    else cases.filterNot(_.name == "bulkhead").map(c => f"bulkhead / ${c.name} = ${medianOf("bulkhead") /
      medianOf(c.name)}%.2f").mkString("Ratios of medians: ", "; ", ".")

  def markdown: String =
    s"""# bulkhead bench $suite
       |
       |Written by `./bulkhead bench $suite --duration ${options.duration.toSeconds} --warmup ${options.warmup.toSeconds} --rounds ${options.rounds}`.
       |Each case starts a fresh server (JVM or nginx), warms it with wrk for ${options.warmup.toSeconds} s (not measured;
       |runs of ${bulkhead.lab.load.WarmUp.RunLength.toSeconds} s, each opening its connections anew, so that the JIT
       |compiles the connection path as well), then
       |measures ${options.duration.toSeconds} s with `wrk --latency --timeout 10s`; cases are interleaved in each round and
       |the table gives the median over ${options.rounds} round(s). Threads and resident memory are sampled from
       |/proc/<pid>/status every 0.5 s (platform threads only: virtual threads are not OS threads); busy pool threads are
       |the peak of the service's /metrics executor gauges.
       |
       |${env.markdown}
       |
       |@@TABLE@@
       |
       |$ratios
       |
       |Cases: ${cases.map(describe).mkString("; ")}.
       |
       |Raw wrk outputs: `wrk-<case>-round<N>.txt` beside this file.
       |""".stripMargin.replace("@@TABLE@@", table)
