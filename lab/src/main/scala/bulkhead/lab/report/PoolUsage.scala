package bulkhead.lab.report

import bulkhead.lab.model.PoolGauge
import bulkhead.lab.record.RunRecord
import bulkhead.lab.sample.{PoolSample, Sample}

/**
 * One pool of the served process over a run: its threads and busy threads from the thread dumps, and, for bulkhead's
 * pools, its executor's gauges from /metrics (active, size, queued). The dump's pool and the gauge's label are one
 * pool when the dump's name ends with the label (threads are named after their configuration path).
 */
final case class PoolUsage(name: String, label: Option[String],
    samples: Seq[(Sample, Option[PoolSample], Option[PoolGauge])]):
  /** `blocking-pool`, `default-dispatcher`, `lettuce-nioEventLoop`: the gauge's label, else the name's last part. */
  def shortName: String = label.getOrElse(name.split('.').last.stripPrefix("bulkhead-"))

  private def series(f: (Option[PoolSample], Option[PoolGauge]) => Option[Double]): Seq[(Double, Double)] =
    samples.flatMap((s, p, g) => f(p, g).map(s.second -> _))

  def busy: Seq[(Double, Double)] = series((p, _) => p.map(_.busy.toDouble))
  def threads: Seq[(Double, Double)] = series((p, _) => p.map(_.threads.toDouble))
  def active: Seq[(Double, Double)] = series((_, g) => g.flatMap(_.active))
  def maximum: Seq[(Double, Double)] = series((_, g) => g.flatMap(_.max))
  def queued: Seq[(Double, Double)] = series((_, g) => g.flatMap(_.queued))

  /** Virtual threads (from JSON dumps): one per task, so the most seen at once is no size. */
  def virtual: Boolean = samples.exists(_._2.exists(_.virtual))

  /** The pool's size: its executor's maximum when it reports one, else the most threads seen (none: virtual). */
  def size: Option[Double] =
    maximum.map(_._2).maxOption.orElse(threads.map(_._2).maxOption.filterNot(_ => virtual)).filter(_ > 0)

  /** Highest share of the pool in use at a sample (0..1): 1 is saturated. */
  def peakShare: Double =
    val inUse = (busy ++ active).map(_._2).maxOption.getOrElse(0.0)
    size.fold(0.0)(s => (inUse / s).min(1.0))

  /** The frame most busy threads stood in. */
  def busyFrame: Option[String] =
    samples.flatMap(_._2.toSeq.flatMap(_.busyFrames.toSeq)).groupMapReduce(_._1)(_._2)(_ + _).maxByOption(_._2)
      .map(_._1)

  private def f0(d: Double) = if d == math.rint(d) then f"$d%.0f" else f"$d%.1f"
  private def median(xs: Seq[Double]) = xs.sorted.lift(xs.size / 2)
  private def stats(xs: Seq[Double]) =
    if xs.isEmpty then "-" else s"${median(xs).map(f0).get} / ${f0(xs.max)}"

  /** A row of [[PoolUsage.header]], over the samples of the measured phase. */
  def row(measured: Seq[Sample]): Seq[String] =
    val in = samples.filter((s, _, _) => measured.contains(s))
    val view = copy(samples = if in.nonEmpty then in else samples)
    Seq(shortName, view.threads.map(_._2).maxOption.fold("-")(f0), stats(view.busy.map(_._2)),
      stats(view.samples.flatMap(_._2.map(_.blocked.toDouble))), stats(view.active.map(_._2)),
      view.maximum.map(_._2).maxOption.fold("-")(f0), stats(view.queued.map(_._2)), busyFrame.getOrElse("-"))

object PoolUsage:
  val header: Seq[String] = Seq("pool", "threads", "busy (median / max)", "blocked (median / max)",
    "executor active (median / max)", "executor size", "queued (median / max)", "busy threads stand in")

  /** The JVM's own threads: one of each, never a pool that serves requests. */
  private val Housekeeping = Seq("CompilerThread", "Attach Listener", "Signal Dispatcher", "Reference Handler",
    "Finalizer", "Common-Cleaner", "Service Thread", "Monitor Deflation", "Notification Thread",
    "VirtualThread-unblocker", "DestroyJavaVM", "process reaper", "Sweeper thread", "JFR ")

  /**
   * The pools of the served process, saturated first: bulkhead's pools (known by their gauges) and every other group
   * of two or more threads that is not the JVM's housekeeping.
   */
  def of(r: RunRecord): Seq[PoolUsage] =
    val labels = r.samples.flatMap(_.metrics.toSeq.flatMap(_.pools.map(_.label))).distinct
    val names = r.samples.flatMap(_.pools.map(_.pool)).distinct
    def labelOf(name: String) = labels.filter(l => name == l || name.endsWith("." + l) || name.endsWith("-" + l))
      .maxByOption(_.length)
    val fromDumps = names.filterNot(n => Housekeeping.exists(n.contains)).map { n =>
      val label = labelOf(n)
      PoolUsage(n, label, r.samples.map(s =>
        (s, s.pools.find(_.pool == n), label.flatMap(l => s.metrics.flatMap(_.pool(l))))))
    }.filter(p => p.label.isDefined || p.threads.exists(_._2 >= 2))
    val matched = fromDumps.flatMap(_.label).toSet
    val gaugeOnly = labels.filterNot(matched).map(l => PoolUsage(l, Some(l), r.samples.map(s =>
      (s, None, s.metrics.flatMap(_.pool(l)))))).filter(_.active.exists(_._2 > 0))
    (fromDumps ++ gaugeOnly).sortBy(p => (-p.peakShare, -p.size.getOrElse(0.0), p.shortName))
