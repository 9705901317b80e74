package bulkhead.lab.report

import bulkhead.lab.model.Target
import bulkhead.lab.record.RunRecord

/**
 * The seeds' own servers beside bulkhead: for every scenario run on several targets, the median of each target's
 * attempts, bulkhead's ratio to Akka HTTP (the seeds' framework, here) and every target's ratio to nginx.
 */
object SideBySide:
  private def median(xs: Seq[Double]): Double =
    val s = xs.filterNot(_.isNaN).sorted
    if s.isEmpty then Double.NaN
    else if s.size % 2 == 1 then s(s.size / 2) else (s(s.size / 2 - 1) + s(s.size / 2)) / 2

  /** Median req/s of a result's attempts (seed 002 ran each server three times). */
  def medianOf(r: RunRecord): Double = median(r.attempts)

  /**
   * Results grouped by scenario, for scenarios with more than one target (each result named `<scenario>@<target>`):
   * base name -> target -> result.
   */
  def groups(results: Seq[RunRecord]): Seq[(String, Map[Target, RunRecord])] =
    def target(r: RunRecord) = Target.named(r.info.name.dropWhile(_ != '@').drop(1))
    results.filter(_.info.name.contains('@')).groupBy(_.info.name.takeWhile(_ != '@')).toSeq.sortBy(_._1)
      .map((base, rs) => base -> rs.flatMap(r => target(r).map(_ -> r)).toMap)

  /** The comparison as a header, rows, and a legend line per target; None when no scenario ran on several. */
  final case class Comparison(header: Seq[String], rows: Seq[Seq[String]], legend: Seq[String])

  val Title = "Side by side: the seeds' frameworks, bulkhead and the machine's ceiling"
  val Method = "Attempts of one scenario ran interleaved (A B C, A B C) on servers started together; medians of the attempts."

  def comparison(results: Seq[RunRecord]): Option[Comparison] =
    val gs = groups(results)
    Option.when(gs.nonEmpty) {
      val targets = Target.All.filter(t => gs.exists(_._2.contains(t)))
      val header = Seq("scenario", "seed's figure") ++ targets.map(t => s"$t req/s (median)") ++
        Seq("bulkhead / akka-http") ++ targets.filter(_ != Target.Nginx).map(t => s"$t / nginx")
      def f(d: Double) = if d.isNaN then "-" else f"$d%.0f"
      def ratio(a: Option[RunRecord], b: Option[RunRecord]) =
        (for x <- a; y <- b yield medianOf(x) / medianOf(y)).filterNot(_.isNaN).map(v => f"$v%.2f").getOrElse("-")
      val rows = gs.map { (base, byTarget) =>
        val seed = byTarget.values.headOption.flatMap(_.info.seed).map(_.figure).getOrElse("-")
        Seq(base, seed) ++ targets.map(t => byTarget.get(t).map(r =>
          s"${f(medianOf(r))} (${r.attempts.map(f).mkString(", ")})").getOrElse("-")) ++
          Seq(ratio(byTarget.get(Target.Bulkhead), byTarget.get(Target.AkkaHttp))) ++
          targets.filter(_ != Target.Nginx).map(t => ratio(byTarget.get(t), byTarget.get(Target.Nginx)))
      }
      Comparison(header, rows, targets.map(t => s"$t: ${t.description}"))
    }

  /** The comparison as a Markdown section, or nothing. */
  def table(results: Seq[RunRecord]): String =
    comparison(results).fold("") { c =>
      s"## $Title\n$Method\n\n${c.legend.map("- " + _).mkString("\n")}\n\n${MarkdownTable(c.header, c.rows)}\n"
    }
