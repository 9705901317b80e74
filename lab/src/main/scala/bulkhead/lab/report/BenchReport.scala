package bulkhead.lab.report

import bulkhead.lab.load.WarmUp
import bulkhead.lab.model.Target
import bulkhead.lab.process.Environment
import bulkhead.lab.record.{CpuPerRequest, RunRecord}

/**
 * A benchmark's figures, rendered from its records alone: one row per case and server (medians over the rounds), the
 * bench line of each, bulkhead's ratios to the peers it ran beside, and for an A/B suite each case against its
 * `reference` case. CPU per request is the figure to quote: on this machine the load generator shares the cores, so
 * requests per second move with its share, the CPU each request costs much less.
 */
final case class BenchReport(suite: String, command: String, env: Environment, rows: Seq[BenchRow],
    reference: Option[String] = None, failures: Seq[String] = Nil):

  private def f1(d: Double) = if d.isNaN || d.isInfinite then "-" else f"$d%.1f"
  private def f0(d: Double) = if d.isNaN || d.isInfinite then "-" else f"$d%,.0f"

  /** The case's name, with the server when the case ran on several. */
  def label(r: BenchRow): String = if rows.count(_.name == r.name) > 1 then s"${r.name} on ${r.target}" else r.name

  /** The bench line of every row. */
  def lines: Seq[String] = rows.map(r => r.line(label(r)))

  private def bulkhead(r: BenchRow): Boolean = r.server.contains(Target.Bulkhead)

  private def ratio(a: Option[Double], b: Option[Double]): String =
    (for x <- a; y <- b if y > 0 yield f"${x / y}%.2f").getOrElse("-")

  /**
   * bulkhead / each peer, CPU per request and req/s: against the peers of the same case, else against the suite's
   * cases that ran on a peer alone (the A/B suite's minimal Pekko server).
   */
  def ratios: Seq[String] =
    val peerCases = rows.groupBy(_.name).values.filter(_.forall(!bulkhead(_))).flatten.toSeq.sortBy(rows.indexOf)
    rows.filter(bulkhead).flatMap { b =>
      val beside = rows.filter(p => p.name == b.name && !bulkhead(p))
      val pairs = if beside.nonEmpty then beside.map(p => p -> s"${b.name}: bulkhead / ${p.target}")
        else peerCases.map(p => p -> s"${label(b)} / ${label(p)}")
      pairs.map { (p, name) =>
        s"$name: CPU per request ${ratio(b.cpuMicros, p.cpuMicros)}, req/s ${ratio(Some(b.throughput),
          Some(p.throughput))}"
      }
    }

  /**
   * Each case against the reference case (the A/B suite's defaults, the sampler suite's unsampled run): what switching
   * its candidate off or on moved, as medians of the ratios paired round by round ([[BenchRow.pairedRatios]]).
   */
  def againstReference: Seq[String] =
    def referenceOf(r: BenchRow) = r.records.head.info.compareWith.orElse(reference)
      .flatMap(ref => rows.find(b => b.name == ref && bulkhead(b))).filter(_.name != r.name)
    rows.filter(bulkhead).flatMap(r => referenceOf(r).map(r -> _)).map { (r, b) =>
        val cpu = for us <- r.cpuMicros; baseUs <- b.cpuMicros yield
          f"$us%.1f us CPU/request against $baseUs%.1f (${us - baseUs}%+.1f us, ${(us / baseUs - 1) * 100}%+.1f %%)"
        def paired(what: String, figure: RunRecord => Option[Double]) = r.pairedRatios(b, figure).map((m, each) =>
          if each.size > 1 then f"$what $m%.2f (${each.map(x => f"$x%.2f").mkString(" ")})" else f"$what $m%.2f")
        val ratios = Seq(paired("req/s", x => Some(x.throughput)), paired("p99", x => Some(x.load.latency.p99Ms)),
          paired("CPU/request", CpuPerRequest.service)).flatten
        s"${r.name}: ${cpu.getOrElse("CPU per request not measured")}; ${ratios.mkString(", ")} x ${b.name}" +
          (if r.records.size > 1 then " (median of the rounds' ratios, each round's in brackets)" else "")
    }

  val header: Seq[String] = Seq("case", "server", "load", "req/s (median)", "req/s per round", "Little's-law bound",
    "ratio to bound", "us CPU/request (median)", "us CPU/request per round", "of which JIT",
    "dependencies' us CPU/request", "lab's us CPU/request", "safepoints ms/s", "pause ms/sample (% of run)", "p50 ms", "p99 ms", "unanswered", "not expected status", "platform threads (max)",
    "RSS MB (max)", "busy pool threads (peak)")

  def tableRows: Seq[Seq[String]] = rows.map { r =>
    val load = r.records.head.info.loadDescription.replaceAll("""http://127\.0\.0\.1:\d+""", "")
    val pools = r.poolPeaks.toSeq.sortBy(_._1).map((k, v) => f"$k $v%.0f").mkString(", ")
    Seq(r.name, r.target, load, f1(r.throughput), r.throughputs.map(x => f"$x%.0f").mkString(" / "),
      r.bound.fold("CPU")(b => s"${f1(b.perSecond)} (${b.what})"), r.ratioToBound.fold("-")(x => f"$x%.3f"),
      r.cpuMicros.fold("-")(f1), r.cpuMicrosPerRound.map(_.fold("-")(f1)).mkString(" / "), r.jitMicros.fold("-")(f1),
      r.dependencyMicros.toSeq.sortBy(_._1).map((n, us) => s"$n ${f1(us)}").mkString(", ") match
        case "" => "-"
        case deps => deps,
      r.labMicros.fold("-")(f1), r.safepointMsPerSecond.fold("-")(f1),
      r.pausePerSampleMs.fold("-")(ms => f"${f1(ms)} (${r.pausedShare.getOrElse(0.0) * 100}%.2f %%)"),
      f1(r.p50Ms), f1(r.p99Ms), r.unanswered.toString, r.unexpected.toString,
      r.maxPlatformThreads.fold("-")(_.toString), r.maxResidentMb.fold("-")(m => f"$m%.0f"),
      if pools.isEmpty then "-" else pools)
  }

  def table: String = MarkdownTable(header, tableRows)

  /** What the console prints at the end of a benchmark. */
  def summary: String =
    (lines ++ Option.when(ratios.nonEmpty)("") ++ ratios ++ Option.when(againstReference.nonEmpty)("") ++
      againstReference ++ failures.map(f => s"did not run: $f")).mkString("\n")

  private def describe(r: BenchRow): String =
    val i = r.records.head.info
    val flags = if i.serviceFlags.isEmpty then "no flags" else s"flags `${i.serviceFlags.mkString(" ")}`"
    val heap = i.heap.fold("")(h => s", heap `$h`")
    val warm = i.warmupConnections.fold("")(c => s", warmed at $c connections")
    val stub = i.stubLatency.fold("")(l => s", stub latency $l")
    s"- `${label(r)}`: ${i.title}; ${r.server.fold(r.target)(_.description)}, $flags$heap$stub$warm " +
      s"(`${i.source.replaceAll("^.*/lab/scenarios/", "lab/scenarios/")}`)"

  def markdown: String =
    val warmups = rows.flatMap(_.warmupSeconds)
    val warmup = warmups.minOption.getOrElse(0.0)
    val longest = warmups.maxOption.getOrElse(0.0)
    val rounds = rows.map(_.records.size).maxOption.getOrElse(0)
    val section = (title: String, body: Seq[String]) =>
      if body.isEmpty then "" else s"\n## $title\n\n${body.map(l => s"- $l").mkString("\n")}\n"
    s"""# bulkhead bench $suite
       |
       |Written by `$command`. Every case is a scenario file run through the lab's one measuring pipeline: a
       |fresh server (JVM or nginx) for each case, server and round, warmed with wrk for ${f0(warmup)}${
         if longest > warmup then s" to ${f0(longest)}" else ""} s (not measured;
       |runs of ${WarmUp.RunLength.toSeconds} s, each opening its connections anew so that the JIT compiles the
       |connection path too; the warm-up goes on while the JIT compiler threads of the server and the stub take more
       |than ${f0(WarmUp.SettledShare * 100)} % of a core together), then measured by wrk with its Lua report (answers
       |by status class, latency histogram) while the server is sampled (threads, /proc, /metrics). Cases and servers are interleaved in each round
       |(A B C, A B C); the table gives medians over $rounds round(s), and each round's `result.json` sits in
       |`<case>/<server>/round-<n>/`.
       |
       |CPU per request: the CPU time (user + system, /proc/<pid>/stat) of the server's process and its children (nginx:
       |master and worker) from just before wrk starts to just after it ends, over the answers wrk counted. The thread
       |dumps of the sampler (every few seconds) and, for bulkhead, its /metrics scrapes are in that time: a few ms each.
       |The stub's and redis-server's CPU is counted the same way, per answer of the service. "of which JIT": the
       |part of the server's that its JIT compiler threads took (a JVM still compiling costs more per request). "lab's
       |us CPU/request": the lab's own process (its sampler: parsing dumps, scraping) over the same time and answers, CPU
       |taken from the cores the server and wrk share. "safepoints ms/s": the server's time with every thread stopped
       |(garbage collections, and the sampler's thread dumps), from its own perf counters, per second of the run.
       |"pause ms/sample": the safepoint time inside each sample's own window (its dump, and the JFR commands of its
       |virtual-thread recording), mean per sample, and the share of the run all samples took (the sampler stretches its
       |interval to keep it under 1 %).
       |
       |${env.markdown}
       |
       |@@TABLE@@
       |${section("bulkhead against the peers (bulkhead / peer; CPU per request: lower is cheaper)", ratios)}${
         section("Each case against its reference, round by round", againstReference)}${
         section("Did not run", failures)}
       |## Cases
       |
       |${rows.map(describe).mkString("\n")}
       |""".stripMargin.replace("@@TABLE@@", table)
