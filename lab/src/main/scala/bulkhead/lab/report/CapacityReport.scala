package bulkhead.lab.report

import bulkhead.lab.diagnose.{CapacityCurve, Diagnosis, StepFigures}
import bulkhead.lab.record.RunRecord

/**
 * The capacity curves of a run (`lab capacity`), as tables: per curve the knee beside the Little's-law cap, then a
 * row per step (the closed loop first): offered and answered rates, answers by status, latency from the intended send
 * time, and each busy pool's occupancy over the step.
 */
object CapacityReport:
  val header: Seq[String] = Seq("step", "offered req/s", "answered req/s", "answered / offered", "answers/s by status",
    "no answer/s", "p50 ms", "p99 ms", "p99.9 ms", "pools: busy / size (mean over the step)",
    "the step's own verdict: cap req/s", "run")

  private def f1(d: Double) = if d.isNaN || d.isInfinite then "-" else f"$d%,.1f"
  private def f0(d: Double) = if d.isNaN || d.isInfinite then "-" else f"$d%,.0f"

  /** Each pool in use over the step: its mean busy threads (the executor's active count, else the dump's) / size. */
  def occupancy(r: RunRecord): String =
    val measured = r.measuredSamples
    val pools = PoolUsage.of(r).flatMap { p =>
      val in = p.samples.filter((s, _, _) => measured.contains(s))
      val busy = in.flatMap((_, d, g) => g.flatMap(_.active).orElse(d.map(_.busy.toDouble)))
      for
        size <- p.size
        mean <- Option.when(busy.nonEmpty)(busy.sum / busy.size)
        if mean >= 0.05
      yield (p.shortName, mean, size)
    }
    if pools.isEmpty then "-"
    else pools.sortBy((_, m, s) => -m / s).take(3).map((n, m, s) => f"$n $m%.1f/$s%.0f").mkString(", ")

  def rows(c: CapacityCurve): Seq[Seq[String]] =
    val closed = c.closedLoop.toSeq.map { r =>
      val l = r.load.latency
      Seq("closed loop", "-", f1(r.throughput), "-", byStatus(r.load.answers.byClass.map((k, n) =>
        k -> n / r.load.durationSeconds.max(1e-9))), f1(r.load.answers.unanswered / r.load.durationSeconds.max(1e-9)),
        f0(l.p50Ms), f0(l.p99Ms), f0(l.p999Ms), occupancy(r), verdict(r), r.info.name)
    }
    val knee = c.knee.map(_.at.step)
    closed ++ c.steps.flatMap(r => StepFigures.of(r).map(f => (r, f))).map { (r, f) =>
      Seq(s"${f.step}${if knee.contains(f.step) then " (knee)" else ""}", f1(f.offered), f1(f.answered),
        f"${f.servedShare}%.2f", byStatus(f.byClass), f1(f.unanswered), f0(f.p50Ms), f0(f.p99Ms), f0(f.p999Ms),
        occupancy(r), verdict(r), r.info.name)
    }

  /**
   * What the diagnosis names on the step alone, and its cap: a resource's hold measured at this rate, which need not be
   * the closed loop's (a call that takes longer at this load moves the cap with it).
   */
  def verdict(r: RunRecord): String =
    val v = Diagnosis(r)
    s"${v.name} ${f1(v.predicted)}"

  private def byStatus(m: Map[String, Double]): String =
    if m.isEmpty then "-" else m.toSeq.sortBy(_._1).map((k, v) => s"$k ${f1(v)}").mkString(", ")

  /** A curve's knee and cap in a sentence, then its table. */
  def table(c: CapacityCurve): String = s"${c.line}\n\n${MarkdownTable(header, rows(c))}"

  /** The `## Capacity` part of a run's README.md: empty when the run has no curve. */
  def markdown(records: Seq[RunRecord]): String =
    val curves = CapacityCurve.of(records)
    if curves.isEmpty then ""
    else
      s"""## Capacity
         |
         |The arrival rate stepped by vegeta's open loop; latency from each request's intended send time. The knee is
         |the first step answered under 95 % of the offered rate or with p99 above 3x the first step's; its throughput
         |is set beside the Little's-law cap the diagnosis names.
         |
         |@@CURVES@@
         |""".stripMargin
        // After stripMargin, which would eat the tables' leading pipes.
        .replace("@@CURVES@@", curves.map(table).mkString("\n\n"))
