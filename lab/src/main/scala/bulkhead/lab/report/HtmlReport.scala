package bulkhead.lab.report

import bulkhead.lab.diagnose.{CapacityCurve, Diagnosis, Verdict, Verification}
import bulkhead.lab.record.RunRecord

import com.github.plokhotnyuk.jsoniter_scala.core.*
import com.github.plokhotnyuk.jsoniter_scala.macros.JsonCodecMaker

import scala.io.Source
import scala.util.Using

/**
 * The report as a page that opens from disk with no network: a card per scenario (measured against the bound, the
 * verdict, the fix and its verification), the table of every run, then per run its charts on one time axis (answers
 * by status, latency, clients and connections, CPU, each pool against its size), its latency distribution and its
 * pools as a table. Charts are drawn in the page by uPlot (inlined, MIT) from the data embedded as JSON.
 */
final class HtmlReport(report: SuiteReport):
  import HtmlReport.{*, given}

  private def f1(d: Double) = if d.isNaN || d.isInfinite then "-" else f"$d%,.1f"

  def render: String =
    val runs = report.results.map(r => r -> Diagnosis(r))
    val verifications = Verification.pair(report.results)
    val charts = runs.map((r, v) => chartsOf(r, v))
    val curves = CapacityCurve.of(report.results).map(c => c -> capacityCharts(c))
    val data = Page(runs.zip(charts).map { case ((r, _), cs) =>
      val t = Timeline(r)
      RunData(Html.id(r.info.name), t.range._1, t.range._2, r.measuredFrom, r.measuredTo, cs.charts.map(ChartData.of))
    } ++ curves.map((c, cs) => RunData(s"capacity-${Html.id(c.name)}", 0, 0, 0, 0, cs.map(ChartData.of))))
    val json = writeToString(data).replace("</", "<\\/")
    // A capacity curve's open-loop steps are read on its chart; their closed loop keeps its card. A fault run's
    // verdict is its checks, in the faults' tables.
    val cards = runs.filterNot((r, _) => isRerun(r, report.results) || r.info.capacityStep.exists(!_.closedLoop) ||
        isFaultRun(r)).map((r, v) => card(r, v, verifications.find(_.original == r)))
    val summary = if cards.isEmpty then "" else s"""<h2 id="summary">Summary</h2>\n<div class="cards">\n${
      cards.mkString("\n")}\n</div>"""
    // Parts go in after stripMargin, which would eat the start of any of their lines that begins with a pipe.
    val parts = Map(
      "CSS" -> (resource("uPlot.min.css") + "\n" + resource("dashboard.css")),
      "SUMMARY" -> summary,
      "FAILURES" -> failures,
      "FAULTS" -> report.faults.html,
      "RUNS" -> Html.table(report.header, report.rows),
      "SIDE_BY_SIDE" -> sideBySide,
      "CAPACITY" -> curves.map((c, cs) => capacitySection(c, cs)).mkString("\n"),
      "SECTIONS" -> runs.zip(charts).map { case ((r, v), cs) => section(r, v, cs) }.mkString("\n"),
      "MACHINE" -> environment,
      "UPLOT" -> resource("uPlot.iife.min.js"),
      "DATA" -> json,
      "SCRIPT" -> resource("dashboard.js"))
    val page =
      s"""<!doctype html>
         |<html lang="en"><head><meta charset="utf-8">
         |<meta name="viewport" content="width=device-width, initial-scale=1">
         |<title>${Html.escape(report.title)}</title>
         |<style>@@CSS@@</style>
         |</head><body><main>
         |<h1>${Html.escape(report.title)}</h1>
         |<p class="lead">Written by <code>${Html.escape(report.command)}</code>. Every figure was measured in this
         |run; the bound is Little's law on the resource that caps it. Charts: hover to read a second on every chart of
         |a run, click a legend entry to hide its line; the shaded band is the measured phase.</p>
         |@@SUMMARY@@
         |@@FAILURES@@
         |@@FAULTS@@
         |<h2 id="runs">Every run</h2>
         |@@RUNS@@
         |@@CAPACITY@@
         |@@SIDE_BY_SIDE@@
         |@@SECTIONS@@
         |<h2 id="machine">Machine</h2>
         |@@MACHINE@@
         |<p class="lead">Charts drawn by uPlot $UPlotVersion (MIT licence, Leon Sorokin), inlined in this page.</p>
         |</main>
         |<script>@@UPLOT@@</script>
         |<script type="application/json" id="report-data">@@DATA@@</script>
         |<script>@@SCRIPT@@</script>
         |</body></html>
         |""".stripMargin
    """@@([A-Z_]+)@@""".r.replaceAllIn(page, m => java.util.regex.Matcher.quoteReplacement(parts(m.group(1))))

  private def failures: String =
    if report.failures.isEmpty then ""
    else report.failures.map(f => s"<li>${Html.escape(f)}</li>")
      .mkString("<h3>Did not run</h3><ul class=\"errors\">", "", "</ul>")

  private def sideBySide: String =
    SideBySide.comparison(report.results).fold("") { c =>
      s"""<h2 id="side-by-side">${Html.escape(SideBySide.Title)}</h2>
         |<p>${Html.escape(SideBySide.Method)}</p>
         |<ul>${c.legend.map(l => s"<li>${Html.escape(l)}</li>").mkString}</ul>
         |${Html.table(c.header, c.rows)}""".stripMargin
    }

  private def environment: String =
    val e = report.env
    facts(Seq("machine" -> s"${e.cpu}, ${e.cores} cores, ${f"${e.memoryGb}%.0f"} GiB, Linux ${e.kernel}",
      "JDK" -> e.jdk, "load generator" -> s"${e.wrk} (same machine, sharing the cores with the server)",
      "redis-server" -> e.redis, "libraries" -> e.libraries.mkString(", ")))

  /** One scenario at a glance: measured against the bound, the verdict, the fix, and the re-run that checked it. */
  private def card(r: RunRecord, v: Verdict, check: Option[Verification]): String =
    val share = if v.predicted > 0 then (v.ratio * 100).min(100).max(0) else 0.0
    val l = r.load.latency
    val a = r.load.answers
    val failed = a.answered + a.unanswered - a.expected(r.info.expectedClass)
    val fix = v.fix.fold("<p><span class=\"label\">fix</span> no setting to change</p>") { f =>
      val flags = if f.flags.isEmpty then "" else s" <code>${Html.escape(f.flags.mkString(" "))}</code>"
      s"<p><span class=\"label\">fix</span> ${Html.escape(f.sentence)}$flags</p>"
    }
    val next = v.next.fold("")(n => s"<p><span class=\"label\">then</span> ${Html.escape(n.name)} caps at " +
      s"${f1(n.perSecond)} req/s</p>")
    val verified = check.fold("") { c =>
      s"""<p class="verified"><span class="label">verified</span> predicted ${f1(c.predicted)} req/s, measured
         |<b>${f1(c.measured)}</b> = <span class="ratio">${f"${c.ratio}%.2f"}</span> of the prediction
         |(<a href="#run-${Html.id(c.rerun.info.name)}">re-run</a>, now capped by
         |${Html.escape(Diagnosis(c.rerun).name)})</p>""".stripMargin
    }
    val errors = v.errors.fold("")(e => s"<p class=\"errors\">${Html.escape(e)}</p>")
    // With errors first, the cap named after them is what would bound the expected answers once they are gone.
    val behind = if v.errors.isDefined then s"; behind them, ${Html.escape(v.cap.name)}" else ""
    val answers =
      if failed > 0 then s"<span class=\"errors\">$failed not ${r.info.expectedClass}</span>"
      else s"every answer ${r.info.expectedClass}"
    s"""<div class="card" id="card-${Html.id(r.info.name)}">
       |<h3><a href="#run-${Html.id(r.info.name)}">${Html.escape(r.info.name)}</a></h3>
       |<p class="title">${Html.escape(r.info.title)}</p>
       |<div class="figure"><span class="big">${f1(v.measured)}</span> req/s measured
       |<span class="of">of ${f1(v.predicted)} bound =</span> <span class="ratio">${f"${v.ratio}%.2f"}</span></div>
       |<div class="bar" title="measured / bound"><div style="width:${f"$share%.0f"}%"></div></div>
       |<p><span class="label">caps it</span> <b>${Html.escape(v.name)}</b>$behind: ${Html.escape(v.cap.why)}</p>
       |$errors$fix$next$verified
       |<p><span class="label">latency</span> p50 ${f1(l.p50Ms)} ms, p99 ${f1(l.p99Ms)} ms;
       |$answers</p>
       |</div>""".stripMargin

  private def section(r: RunRecord, v: Verdict, cs: RunCharts): String =
    val s = r.info
    val l = r.load.latency
    val rows = Seq(
      "load" -> s.loadDescription,
      "service flags" -> (s.serviceFlags.mkString(" ") + s.stubLatency.fold("")(x => s"; stub latency $x") +
        s.redisCustomers.fold("")(n => s"; Redis with $n profiles")),
      "measured" -> (
        (if r.attempts.size > 1 then s"attempts ${r.attempts.map(f1).mkString(", ")} req/s; last: " else "") +
        s"${f1(v.measured)} req/s of ${s.expectedClass}, mean ${f1(l.meanMs)} ms, p50 ${f1(l.p50Ms)} ms, " +
        s"p99 ${f1(l.p99Ms)} ms"),
      "answers" -> r.load.answers.describe,
      "diagnosis" -> v.explanation,
      "CPU" -> v.cpuMicrosPerRequest.fold("-")(us => f"service $us%.0f us per request"),
      "JDK" -> s.jdk,
      "seed" -> s.seed.fold("none")(x => s"${x.figure} (seed ${x.id}, row ${x.row})"),
      "scenario" -> s.source)
    val missing = cs.missing.map(m => s"<p class=\"missing\">${Html.escape(m)}</p>").mkString("\n")
    val pools = PoolUsage.of(r)
    val poolTable =
      if pools.isEmpty then "<p class=\"missing\">no pool sampled</p>"
      else Html.table(PoolUsage.header, pools.map(_.row(r.measuredSamples)), "pools")
    s"""<section class="run" id="run-${Html.id(s.name)}">
       |<h2>${Html.escape(s.name)}: ${Html.escape(s.title)}</h2>
       |<p class="lead">${Html.escape(s.loadDescription)}</p>
       |<div class="charts">
       |${cs.main.map(box(_, small = false)).mkString("\n")}
       |</div>
       |$missing
       |${report.faults.runHtml(r)}
       |<h3>Pools: busy threads against each pool's size</h3>
       |<div class="charts pools">
       |${cs.pools.map(box(_, small = true)).mkString("\n")}
       |</div>
       |$poolTable
       |<h3>The run</h3>
       |${facts(rows)}
       |</section>""".stripMargin

  /** A capacity curve: the knee beside the cap, offered against answered per step, latency per step, the table. */
  private def capacitySection(c: CapacityCurve, cs: Seq[Chart]): String =
    val id = Html.id(c.name)
    s"""<section class="capacity" id="capacity-$id">
       |<h2>Capacity: ${Html.escape(c.name)}</h2>
       |<p class="lead">${Html.escape(c.line)}</p>
       |<p>The arrival rate stepped by vegeta's open loop; latency from each request's intended send time. The knee is
       |the first step answered under 95 % of the offered rate or with p99 above 3x the first step's.</p>
       |<div class="charts">
       |${cs.map(box(_, small = false)).mkString("\n")}
       |</div>
       |${Html.table(CapacityReport.header, CapacityReport.rows(c))}
       |</section>""".stripMargin

  private def box(c: Chart, small: Boolean): String =
    s"""<div class="chart${if small then " small" else ""}" id="${Html.escape(c.id)}">""" +
      s"""<h4>${Html.escape(c.title)}</h4><div class="plot"></div></div>"""

  private def facts(rows: Seq[(String, String)]): String =
    rows.map((k, v) => s"<tr><th>${Html.escape(k)}</th><td>${Html.escape(v)}</td></tr>")
      .mkString("<table class=\"facts\"><tbody>", "\n", "</tbody></table>")

object HtmlReport:
  /** The version of the inlined uPlot (lab/src/main/resources/report/uPlot.iife.min.js, from npm). */
  val UPlotVersion = "1.6.32"

  /** The most pools a run charts one by one (saturated first, idle ones left to the table, which lists them all). */
  val PoolCharts = 6

  /** A run's charts, and a sentence for each chart its record has no data for. */
  final case class RunCharts(main: Seq[Chart], pools: Seq[Chart], missing: Seq[String]):
    def charts: Seq[Chart] = main ++ pools

  def chartsOf(r: RunRecord, v: Verdict): RunCharts =
    val t = Timeline(r)
    val bound = Series(f"bound ${v.cap.name} (${v.predicted}%.1f/s)", Seq(t.range._1 -> v.predicted,
      t.range._2 -> v.predicted), "#000000", dashed = true)
    val id = Html.id(r.info.name)
    val driver = r.load.driver
    val wanted = Seq(
      Chart.of(s"$id-answers", "Answers per second by status class", Chart.Time, "answers/s",
        Option.when(t.answers.nonEmpty)(t.answers :+ bound).getOrElse(Nil)) ->
        "answers per second: not recorded",
      Chart.of(s"$id-latency", "Latency over time", Chart.Time, "ms", t.latency) ->
        (s"latency over time: not recorded ($driver gave no per-second latency and the service's /metrics no " +
          "request-latency histogram); the distribution over the whole run is below"),
      Chart.of(s"$id-concurrency", "Clients and connections", Chart.Time, "open", t.concurrency) ->
        "clients and connections: not recorded",
      Chart.of(s"$id-cpu", "CPU", Chart.Time, "cores", t.cpu) -> "CPU: not recorded (no /proc for the process)",
      Chart.of(s"$id-distribution", "Latency distribution (whole measured phase)", Chart.Percentile, "ms",
        Seq(Series(s"latency ($driver)", LatencySpectrum.points(r.load.latency), "#1f77b4"))) ->
        "latency distribution: no answer was timed")
    // Virtual threads have no size to share, but are charted when they held work.
    val pools = PoolUsage.of(r).filter(p => p.peakShare > 0 || p.virtual && p.busy.exists(_._2 > 0))
      .take(PoolCharts).zipWithIndex.flatMap { (p, i) =>
        val kind = p.size.map(s => f" (size $s%.0f)").getOrElse(if p.virtual then " (virtual threads)" else "")
        Chart.of(s"$id-pool-$i", s"${p.shortName}$kind", Chart.Time, "threads", t.pool(p), unit2 = Some("queued"))
      }
    val unansweredOverRun = Option.when(r.load.answers.unanswered > 0 && r.load.seconds.forall(_.unanswered.isEmpty))(
      f"requests without an answer per second: not recorded ($driver counts its ${r.load.answers.unanswered}%,d " +
        s"socket errors and timeouts over the whole run only: ${r.load.answers.describe})")
    RunCharts(FaultsReport.charts(r, id) ++ wanted.flatMap(_._1), pools,
      wanted.collect { case (None, why) => why } ++ unansweredOverRun)

  /**
   * A capacity curve's charts, x the offered rate: offered (the diagonal a service that keeps up follows) against
   * answered per step, by status, with the Little's-law cap; and p50, p99 and p99.9 per step.
   */
  def capacityCharts(c: CapacityCurve): Seq[Chart] =
    val id = s"capacity-${Html.id(c.name)}"
    val f = c.figures.sortBy(_.offered)
    val top = f.map(_.offered).maxOption.getOrElse(0.0)
    val cap = c.verdict.map(v => Series(f"cap ${v.name} (${v.predicted}%.1f/s)", Seq(0.0 -> v.predicted,
      top -> v.predicted), "#000000", dashed = true))
    val classes = f.flatMap(_.byClass.keys).distinct.sorted
    val answered = Series("answered as expected", f.map(s => s.offered -> s.answered), "#2ca02c") +:
      classes.filterNot(_ == c.steps.headOption.fold("2xx")(_.info.expectedClass)).map(k =>
        Series(s"answered $k", f.map(s => s.offered -> s.byClass.getOrElse(k, 0.0)), Timeline.classColor(k))) :+
      Series("no answer", f.map(s => s.offered -> s.unanswered), "#7f7f7f")
    val offered = Series("offered", f.map(s => s.offered -> s.offered), "#1f77b4", dashed = true)
    Seq(
      Chart.of(s"$id-throughput", "Offered against answered, per step", Chart.Rate, "req/s",
        (offered +: answered.filter(_.points.exists(_._2 > 0))) ++ cap),
      Chart.of(s"$id-latency", "Latency per step, from the intended send time", Chart.Rate, "ms", Seq(
        Series("p50", f.map(s => s.offered -> s.p50Ms), "#1f77b4"),
        Series("p99", f.map(s => s.offered -> s.p99Ms), "#ff7f0e"),
        Series("p99.9", f.map(s => s.offered -> s.p999Ms), "#d62728")))).flatten

  /** A run of `lab faults` or `lab cluster-faults`: a fault injected, the overload ramp, or an undersized pool. */
  def isFaultRun(r: RunRecord): Boolean = r.fault.isDefined || r.overload.isDefined || r.goodput.isDefined

  /** A re-run of `--verify` whose original is in the same report: its card is the original's. */
  def isRerun(r: RunRecord, all: Seq[RunRecord]): Boolean =
    r.info.name.endsWith(Verification.VerifySuffix) &&
      all.exists(_.info.name == r.info.name.stripSuffix(Verification.VerifySuffix))

  private def resource(name: String): String =
    Using.resource(Source.fromResource(s"report/$name", getClass.getClassLoader))(_.mkString)

  /** The data the page's script draws: per run, its shared time axis and its charts as aligned arrays. */
  private final case class LineData(label: String, color: String, dashed: Boolean, axis: String, filled: Boolean,
      values: Seq[Option[Double]])
  private final case class ChartData(id: String, title: String, kind: String, unit: String, unit2: Option[String],
      x: Seq[Double], lines: Seq[LineData])
  private object ChartData:
    private def round(d: Double) = math.rint(d * 1000) / 1000
    def of(c: Chart): ChartData =
      ChartData(c.id, c.title, c.kind, c.unit, c.unit2, c.xs.map(round), c.series.zip(c.aligned).map((s, vs) =>
        LineData(s.label, s.color, s.dashed, s.axis, s.filled,
          vs.map(_.filterNot(v => v.isNaN || v.isInfinite).map(round)))))
  private final case class RunData(id: String, from: Double, to: Double, measuredFrom: Double, measuredTo: Double,
      charts: Seq[ChartData])
  private final case class Page(runs: Seq[RunData])
  private given JsonValueCodec[Page] = JsonCodecMaker.make
