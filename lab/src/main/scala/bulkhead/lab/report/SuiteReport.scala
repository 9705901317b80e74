package bulkhead.lab.report

import bulkhead.lab.diagnose.Diagnosis
import bulkhead.lab.record.RunRecord

import java.nio.file.{Files, Path}
import java.util.Base64

/** The report of a suite: a Markdown summary and a self-contained HTML page with the plots. Nothing typed by hand. */
final case class SuiteReport(title: String, command: String, env: Environment, results: Seq[RunRecord],
    failures: Seq[String]):

  private def f1(d: Double) = if d.isNaN || d.isInfinite then "-" else f"$d%.1f"

  /** Busy / total threads of each pool at the median sample of the measured phase. */
  def poolsOf(r: RunRecord): String =
    val samples = r.measuredSamples.map(_.pools)
    if samples.isEmpty then "-"
    else
      val mid = samples(samples.size / 2)
      // The service's own pools (named after their configuration path), not the JVM's housekeeping threads.
      mid.filter(p => p.threads > 0 && p.pool.contains("bulkhead"))
        .map(p => s"${p.pool.split('.').last.stripPrefix("bulkhead-")} ${p.busy}/${p.threads}")
        .mkString(", ")

  val header: Seq[String] = Seq("scenario", "seed's figure", "bound (Little's law)", "measured req/s",
    "ratio to bound", "p50 / p99 ms", "errors", "what caps it", "busy/threads per pool")

  def rows: Seq[Seq[String]] = results.map { r =>
    val v = Diagnosis(r)
    val seed = r.info.seed.map(s => s"${s.figure} (seed ${s.file.take(3)}, row ${s.row})").getOrElse("-")
    val a = r.load.answers
    Seq(r.info.name, seed, f1(v.predicted), f1(v.measured), f"${v.ratio}%.3f",
      s"${f1(r.load.latency.p50Ms)} / ${f1(r.load.latency.p99Ms)}", s"${a.answered + a.unanswered - a.expected(r.info.expectedClass)}",
      v.name, poolsOf(r))
  }

  def table: String = MarkdownTable(header, rows)

  /** Runs re-run with their verdict's fix (`--verify`): what the lab predicted and what the re-run measured. */
  def verified: String =
    val vs = bulkhead.lab.run.Verification.pair(results)
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
      s"""### ${s.name}: ${s.title}
         |- load: ${s.loadDescription}
         |- service flags: `${s.serviceFlags.mkString(" ")}`${s.stubLatency.map(l => s"; stub latency $l").getOrElse("")}${s.redisCustomers.map(n => s"; Redis with $n profiles").getOrElse("")}
         |- measured: ${if r.attempts.size > 1 then s"attempts ${r.attempts.map(f1).mkString(", ")} req/s; last: " else ""}${f1(v.measured)} req/s of ${s.expectedClass}, mean ${f1(l.meanMs)} ms, p50 ${f1(l.p50Ms)} ms, p99 ${f1(l.p99Ms)} ms; answers: ${r.load.answers.describe}
         |- diagnosis: ${v.explanation}
         |- CPU: ${v.cpuMicrosPerRequest.fold("-")(us => f"service $us%.0f us per request")}; JDK ${s.jdk}
         |- seed: ${s.seed.map(x => s"${x.figure} (seed ${x.file.take(3)})").getOrElse("none")}; scenario file `${s.source}`
         |
         |![throughput](${s.name}-throughput.png) ![threads](${s.name}-threads.png) ![latency](${s.name}-latency.png)
         |""".stripMargin
    }.mkString("\n")
    s"""# $title
       |
       |Written by `$command`. Every figure below was measured in this run.
       |
       |${env.markdown}
       |
       |@@TABLE@@
       |${if failures.isEmpty then "" else failures.map(f => s"- did not run: $f").mkString("\n", "\n", "\n")}
       |@@VERIFIED@@
       |@@SIDEBYSIDE@@
       |## Scenarios
       |
       |$details""".stripMargin.replace("@@TABLE@@", table).replace("@@VERIFIED@@", verified)
      .replace("@@SIDEBYSIDE@@", SideBySide.table(results))

  /** Writes README.md, report.html and the plots into `dir`. */
  def write(dir: Path): Path =
    Files.createDirectories(dir)
    Environment.write(env, dir)
    val charts = results.flatMap(r => Charts.write(r, dir))
    Files.writeString(dir.resolve("README.md"), markdown)
    val html = markdown.linesIterator.map { line =>
      val img = """!\[([^\]]*)\]\(([^)]+)\)""".r
      val withImages = img.replaceAllIn(line, m =>
        val file = dir.resolve(m.group(2))
        val data = if Files.exists(file) then Base64.getEncoder.encodeToString(Files.readAllBytes(file)) else ""
        java.util.regex.Matcher.quoteReplacement(s"""<img alt="${m.group(1)}" src="data:image/png;base64,$data">"""))
      if line.startsWith("# ") then s"<h1>${line.drop(2)}</h1>"
      else if line.startsWith("### ") then s"<h3>${line.drop(4)}</h3>"
      else if line.startsWith("## ") then s"<h2>${line.drop(3)}</h2>"
      else if line.startsWith("| ---") then ""
      else if line.startsWith("| ") then
        line.stripPrefix("| ").stripSuffix(" |").split(" \\| ").map(c => s"<td>$c</td>").mkString("<tr>", "", "</tr>")
      else if line.startsWith("- ") then s"<li>${withImages.drop(2)}</li>"
      else s"<p>$withImages</p>"
    }.mkString("\n")
    Files.writeString(dir.resolve("report.html"),
      s"""<!doctype html><html><head><meta charset="utf-8"><title>$title</title><style>
         |body{font-family:sans-serif;max-width:1300px;margin:auto} td{border:1px solid #ccc;padding:3px 6px;font-size:13px}
         |table{border-collapse:collapse}</style></head><body>
         |${html.replaceAll("(?s)(<tr>.*</tr>)", "<table>$1</table>")}
         |</body></html>""".stripMargin)
    dir.resolve("README.md")
