package bulkhead.lab.report

import bulkhead.lab.diagnose.{Diagnosis, Verification}
import bulkhead.lab.process.Environment
import bulkhead.lab.record.RunRecord

import java.nio.file.{Files, Path}

/**
 * The report of a suite: README.md (Markdown tables, for reading in a repository) and report.html (the dashboard:
 * [[HtmlReport]]). Nothing typed by hand: both are rendered from the run records alone.
 */
final case class SuiteReport(title: String, command: String, env: Environment, results: Seq[RunRecord],
    failures: Seq[String]):
  /** The fault runs among the results (`lab faults`, `lab cluster-faults`) with their verdict; empty when none. */
  lazy val faults: FaultsReport = FaultsReport.of(results)

  private def f1(d: Double) = if d.isNaN || d.isInfinite then "-" else f"$d%.1f"

  /** The pool nearest to saturation at the median sample of the measured phase: `blocking-pool 4/4`. */
  def busiestPool(r: RunRecord): String =
    val samples = r.measuredSamples
    val mid = samples.lift(samples.size / 2)
    PoolUsage.of(r).headOption.fold("-") { p =>
      val at = mid.flatMap(m => p.samples.find(_._1 == m))
      val busy = at.flatMap((_, d, g) => g.flatMap(_.active).orElse(d.map(_.busy.toDouble)))
      val size = at.flatMap((_, d, g) => g.flatMap(_.max).orElse(d.map(_.threads.toDouble))).orElse(p.size)
      s"${p.shortName} ${busy.fold("?")(b => f"$b%.0f")}/${size.fold("?")(s => f"$s%.0f")}"
    }

  val header: Seq[String] = Seq("scenario", "seed's figure", "bound (Little's law)", "measured req/s",
    "ratio to bound", "p50 / p99 ms", "errors", "what caps it", "busiest pool (busy/size)")

  def rows: Seq[Seq[String]] = results.map { r =>
    val v = Diagnosis(r)
    val seed = r.info.seed.map(s => s"${s.figure} (seed ${s.id}, row ${s.row})").getOrElse("-")
    val a = r.load.answers
    Seq(r.info.name, seed, f1(v.predicted), f1(v.measured), f"${v.ratio}%.3f",
      s"${f1(r.load.latency.p50Ms)} / ${f1(r.load.latency.p99Ms)}", s"${a.answered + a.unanswered - a.expected(r.info.expectedClass)}",
      v.name, busiestPool(r))
  }

  def table: String = MarkdownTable(header, rows)

  /** Runs re-run with their verdict's fix (`--verify`): what the lab predicted and what the re-run measured. */
  def verified: String =
    val vs = Verification.pair(results)
    if vs.isEmpty then ""
    else
      val table = MarkdownTable(Seq("scenario", "fix", "predicted (what caps next)", "measured", "ratio", "now capped by"),
        vs.map(v => Seq(v.original.info.name, v.verdict.fix.map(_.flags.mkString(" ")).getOrElse("-"),
          f"${v.predicted}%.1f (${v.verdict.next.map(_.name).getOrElse("-")})", f"${v.measured}%.1f",
          f"${v.ratio}%.2f", Diagnosis(v.rerun).name)))
      s"\n## The fixes, verified\nEach scenario re-run with the setting its verdict named.\n\n$table\n"

  def markdown: String =
    val details = results.map { r =>
      val s = r.info
      val v = Diagnosis(r)
      val l = r.load.latency
      val pools = PoolUsage.of(r)
      val poolTable = if pools.isEmpty then "no pool sampled" else MarkdownTable(PoolUsage.header, pools.map(_.row(r.measuredSamples)))
      s"""### ${s.name}: ${s.title}
         |- load: ${s.loadDescription}
         |- service flags: `${s.serviceFlags.mkString(" ")}`${s.stubLatency.map(l => s"; stub latency $l").getOrElse("")}${s.redisCustomers.map(n => s"; Redis with $n profiles").getOrElse("")}
         |- measured: ${if r.attempts.size > 1 then s"attempts ${r.attempts.map(f1).mkString(", ")} req/s; last: " else ""}${f1(v.measured)} req/s of ${s.expectedClass}, mean ${f1(l.meanMs)} ms, p50 ${f1(l.p50Ms)} ms, p99 ${f1(l.p99Ms)} ms; answers: ${r.load.answers.describe}
         |- diagnosis: ${v.explanation}
         |- CPU: ${v.cpuMicrosPerRequest.fold("-")(us => f"service $us%.0f us per request")}; JDK ${s.jdk}
         |- seed: ${s.seed.map(x => s"${x.figure} (seed ${x.id})").getOrElse("none")}; scenario file `${s.source}`
         |
         |Pools over the measured phase:
         |
         |@@POOLS@@
         |""".stripMargin.replace("@@POOLS@@", poolTable)
    }.mkString("\n")
    // Tables go in after stripMargin, which would eat their leading pipes.
    s"""# $title
       |
       |Written by `$command`. Every figure below was measured in this run. The charts (answers, latency, connections,
       |CPU and every pool against its size, second by second) are in [report.html](report.html), which opens from disk.
       |
       |${env.markdown}
       |
       |@@TABLE@@
       |${if failures.isEmpty then "" else failures.map(f => s"- did not run: $f").mkString("\n", "\n", "\n")}
       |@@FAULTS@@
       |@@VERIFIED@@
       |@@CAPACITY@@
       |@@SIDEBYSIDE@@
       |## Runs
       |
       |@@DETAILS@@""".stripMargin.replace("@@TABLE@@", table)
      .replace("@@FAULTS@@", if faults.checks.isEmpty then "" else faults.markdown).replace("@@VERIFIED@@", verified)
      .replace("@@CAPACITY@@", CapacityReport.markdown(results))
      .replace("@@SIDEBYSIDE@@", SideBySide.table(results)).replace("@@DETAILS@@", details)

  /** Writes README.md, report.html and environment.json into `dir`. */
  def write(dir: Path): Path =
    Files.createDirectories(dir)
    Environment.write(env, dir)
    Files.writeString(dir.resolve("README.md"), markdown)
    Files.writeString(dir.resolve(SuiteReport.HtmlFile), HtmlReport(this).render)
    dir.resolve("README.md")

object SuiteReport:
  val HtmlFile = "report.html"
