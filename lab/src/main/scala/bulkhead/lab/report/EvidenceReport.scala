package bulkhead.lab.report

import bulkhead.lab.diagnose.{Diagnosis, Verdict}
import bulkhead.lab.model.Resource
import bulkhead.lab.record.RunRecord
import bulkhead.lab.sample.{ResourceSample, ThreadDump}

/**
 * `lab analyze`'s reading of evidence taken without the lab ([[bulkhead.lab.record.OfflineRun]]): one dump read as TDA
 * reads it, or a series' pools and resources over time (busy/threads, and held/waiting per resource, as seed 004's
 * jstackSeries printed counts), then what the threads wait on with its chain, and with a rate its hold and cap (the
 * verdict line); deadlocks last.
 */
object EvidenceReport:
  def render(record: RunRecord, source: String, single: Option[ThreadDump], rated: Boolean,
      deadlocks: Seq[Seq[String]]): String =
    val samples = record.samples
    val header = single.fold(f"$source: ${samples.size} dumps over ${samples.lastOption.fold(0.0)(_.second)}%.1f s")(
      _ => source)
    val shown = spread(samples)
    val body = single match
      case Some(dump) => ThreadTable.analysis(dump, deadlocks = false)
      case None =>
        (if shown.size < samples.size then s"${shown.size} of the ${samples.size} dumps, evenly spread " +
          s"(seconds ${shown.map(s => f"${s.second}%.1f").mkString(", ")}):\n" else "") +
          ThreadTable.render(shown.map(_.pools)) + "\n" + resources(shown.map(_.resources))
    Seq(header, body, verdict(Diagnosis(record), rated), locked(deadlocks)).mkString("\n")

  /** At most [[Columns]] samples, evenly spread from the first to the last: a table a terminal can show. */
  private def spread[A](xs: Seq[A]): Seq[A] =
    if xs.size <= Columns then xs
    else (0 until Columns).map(i => xs(math.round(i * (xs.size - 1).toDouble / (Columns - 1)).toInt))

  /** Columns of a table over time. */
  val Columns = 8

  /** One row per resource threads queue on, one column per sample: `held/waiting`. */
  def resources(samples: Seq[Seq[ResourceSample]]): String =
    val keys = samples.flatMap(_.map(_.key)).distinct.sortBy(k => -samples.map(_.find(_.key == k).fold(0)(_.waiters)).sum)
    if keys.isEmpty then "what threads queue on: nothing"
    else
      def name(k: String) = samples.flatten.find(_.key == k).fold(k)(r => s"${r.blocker} at ${r.site}")
      val width = (keys.map(name(_).length) :+ 8).max.min(90)
      val rows = keys.map { k =>
        s"%-${width}s".format(name(k).take(width)) + samples.map(s =>
          s.find(_.key == k).fold("  -")(r => s"  ${r.holders}/${r.waiters}")).map(c => f"$c%-10s").mkString
      }
      ("what threads queue on, per dump (held/waiting):" +: rows).mkString("\n")

  /** The verdict line with a rate; without one, what the threads wait on and its chain, no figure made of a rate. */
  private def verdict(v: Verdict, rated: Boolean): String =
    if v.cap.resource == Resource.LoadGenerator then
      "=> no resource was full in these dumps: no thread pool at its size, nothing most threads queue on"
    else if rated then v.line("analyze")
    else
      val chain = v.chain.dropRight(1)
      val at = Option(v.cap.subject).filter(s => s.nonEmpty && !v.cap.name.contains(s)).fold("")(s => s" at $s")
      s"=> the threads wait on ${v.cap.name}$at" + (if chain.isEmpty then "" else s"; chain: ${chain.mkString(" -> ")}") +
        "; give --rate R (requests per second through it) for its hold time and cap"

  private def locked(deadlocks: Seq[Seq[String]]): String =
    if deadlocks.isEmpty then "deadlocks: none"
    else deadlocks.map(d => s"DEADLOCK between: ${d.mkString(", ")}").mkString("\n")
