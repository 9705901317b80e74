package bulkhead.lab.faults

import bulkhead.lab.report.{Environment, MarkdownTable}
import org.knowm.xchart.BitmapEncoder.BitmapFormat
import org.knowm.xchart.style.markers.SeriesMarkers
import org.knowm.xchart.{BitmapEncoder, XYChartBuilder}

import java.nio.file.{Files, Path}

/** A fault run in one SOAP mode of the service, with its verdict. */
final case class FaultOutcome(mode: String, fault: FaultCase, record: FaultRecord, checks: Seq[Check]):
  def passed: Boolean = checks.forall(_.passed)
  /** The name of its files in the report. */
  def file: String = s"$mode-${fault.name}"

/** The faults suite's report: a matrix table, a timeline per fault (PNG), the recorded data (JSON), the ramp. */
final case class FaultReport(command: String, env: Environment, setup: Seq[String], outcomes: Seq[FaultOutcome],
    suiteChecks: Seq[(String, Check)], ramp: Seq[OverloadStep], rampChecks: Seq[Check], failures: Seq[String]):

  private def f0(d: Double) = if d.isNaN then "-" else f"$d%.0f"

  def passed: Boolean = failures.isEmpty && outcomes.forall(_.passed) && suiteChecks.forall(_._2.passed) &&
    rampChecks.forall(_.passed)

  def matrix: String =
    val header = Seq("mode", "fault", "answers by status", "no answer", "breaker", "back after", "threads before/after",
      "heap MB before/after", "verdict")
    val rows = outcomes.map { o =>
      val r = o.record
      val statuses = r.statuses.toSeq.sorted.map((s, n) => s"$s: $n").mkString(", ")
      val unanswered = r.totals.collect { case ((_, out), n) if !out.answered => s"${out.word} $n" }
      val breaker = o.checks.find(_.name.startsWith("circuit")).map(_.detail).getOrElse("-")
      Seq(o.mode, o.fault.name, statuses, if unanswered.isEmpty then "0" else unanswered.mkString(", "), breaker,
        FaultVerdict.recoverySeconds(r).map(s => f"$s%.1f s").getOrElse("never"),
        s"${r.before.platformThreads} / ${r.after.platformThreads}", f"${r.before.heapMb}%.0f / ${r.after.heapMb}%.0f",
        if o.passed then "pass" else "FAIL: " + o.checks.filterNot(_.passed).map(_.name).mkString(", "))
    }
    MarkdownTable(header, rows)

  def rampTable: String =
    MarkdownTable(Seq("load", "users", "200/s", "503/s", "200 p50 / p99 ms", "503 p50 ms", "/hello max ms",
      "/health max ms", "no answer", "service cores", "machine busy"), ramp.map(s => Seq(s"${s.factor}x", s.users.toString,
      f0(s.okPerSecond), f0(s.shedPerSecond), s"${f0(s.okP50Ms)} / ${f0(s.okP99Ms)}",
      if s.shedP50Ms.isNaN then "-" else f"${s.shedP50Ms}%.1f", f0(s.helloMaxMs), f0(s.healthMaxMs),
      s.unanswered.toString, f"${s.serviceCores}%.2f", s"${f0(s.machineBusy * 100)} %")))


  def markdown: String =
    val details = outcomes.map { o =>
      val r = o.record
      s"""### ${o.mode}, ${o.fault.name}: ${o.fault.description}
         |Injected at ${f"${r.injectAt}%.1f"} s, cleared at ${f"${r.clearAt}%.1f"} s, load stopped at ${f"${r.endAt}%.1f"} s.
         |
         |${o.checks.map(c => s"- ${if c.passed then "pass" else "**FAIL**"} ${c.name}: ${c.detail}").mkString("\n")}
         |
         |![${o.file}](${o.file}.png)  (data: [${o.file}.json](${o.file}.json))
         |""".stripMargin
    }.mkString("\n")
    s"""# bulkhead faults suite: ${if passed then "every check passed" else "SOME CHECKS FAILED"}
       |
       |Written by `$command`. Every figure below was measured in this run.
       |
       |${env.markdown}
       |
       |Setup: ${setup.mkString("; ")}.
       |
       |## Fault matrix
       |Each fault is injected under steady load, held, and cleared. "No answer" counts requests that got no HTTP
       |answer (timeout, reset, closed); "back after" is the time from clearing to the end of the first 1 s window
       |with OK answers at ${f0(FaultVerdict.RecoveredShare * 100)} % of the pre-fault median. Threads and heap are
       |read after a full GC before the fault and after the load stopped.
       |
       |@@MATRIX@@
       |${if failures.isEmpty then "" else failures.map(f => s"- did not run: $f").mkString("\n", "\n", "\n")}
       |Over each service's whole run (threads: every thread of the dump, ${FaultVerdict.ThreadSlack} of slack; heap:
       |${FaultVerdict.HeapFactor}x the first baseline + ${f0(FaultVerdict.HeapSlackMb)} MB):
       |
       |${suiteChecks.map((m, c) => s"- $m: ${if c.passed then "pass" else "**FAIL**"} ${c.name}: ${c.detail}")
          .mkString("\n")}
       |
       |## Overload: 0.5x to 3x of max-in-flight
       |
       |@@RAMP@@
       |
       |${rampChecks.map(c => s"- ${if c.passed then "pass" else "**FAIL**"} ${c.name}: ${c.detail}").mkString("\n")}
       |
       |## Timelines
       |
       |$details""".stripMargin
      // The tables go in after stripMargin, which would eat their leading pipes.
      .replace("@@MATRIX@@", matrix).replace("@@RAMP@@", rampTable)

  def write(dir: Path): Path =
    Files.createDirectories(dir)
    outcomes.foreach { o =>
      Files.writeString(dir.resolve(s"${o.file}.json"), o.record.toJson)
      FaultReport.chart(o.record, dir.resolve(s"${o.file}.png"))
    }
    val file = dir.resolve("README.md")
    Files.writeString(file, markdown)
    file

object FaultReport:
  /** Answers per second by outcome, OK p99 latency, platform threads and the breaker, with the fault's window. */
  def chart(r: FaultRecord, file: Path): Unit =
    val c = XYChartBuilder().width(800).height(340).title(s"${r.fault}: answers per second by outcome")
      .xAxisTitle("seconds").yAxisTitle("answers/s | ms/10 | threads").build()
    c.getStyler.setMarkerSize(3)
    val xs = r.seconds.map(_.second.toDouble).toArray
    val outcomes = r.seconds.flatMap(_.outcomes.keys).distinct.sorted
    outcomes.foreach { o =>
      c.addSeries(o.label, xs, r.seconds.map(_.outcomes.getOrElse(o, 0).toDouble).toArray)
        .setMarker(SeriesMarkers.NONE)
    }
    val p99 = r.seconds.filterNot(_.okP99Ms.isNaN)
    if p99.nonEmpty then
      c.addSeries("OK p99 ms / 10", p99.map(_.second.toDouble).toArray, p99.map(_.okP99Ms / 10).toArray)
        .setMarker(SeriesMarkers.CIRCLE)
    val threads = r.seconds.filter(_.threads.isDefined)
    if threads.nonEmpty then
      c.addSeries("platform threads", threads.map(_.second.toDouble).toArray,
        threads.map(_.threads.get.toDouble).toArray).setMarker(SeriesMarkers.NONE)
    val top = (r.seconds.flatMap(_.outcomes.values).maxOption.getOrElse(1) max 1).toDouble
    val breaker = r.seconds.filter(_.breaker.isDefined)
    if breaker.nonEmpty then
      c.addSeries("breaker (open = top)", breaker.map(_.second.toDouble).toArray,
        breaker.map(_.breaker.get / 2 * top).toArray).setMarker(SeriesMarkers.NONE)
    c.addSeries("fault held", Array(r.injectAt, r.injectAt, r.clearAt, r.clearAt), Array(0, top * 1.05, top * 1.05, 0))
      .setMarker(SeriesMarkers.NONE)
    BitmapEncoder.saveBitmap(c, file.toString.stripSuffix(".png"), BitmapFormat.PNG)
