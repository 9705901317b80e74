package bulkhead.lab.report

import bulkhead.lab.model.{LoadSecond, MetricsReading}
import bulkhead.lab.record.RunRecord
import bulkhead.lab.sample.Sample

/**
 * A run second by second, as the report charts it, on one time axis (seconds after the load started): answers per
 * second by status class, latency percentiles, clients and connections, the CPU, and each pool against its size.
 * Rates are plotted at the middle of the interval they were counted over. Every series comes from the record alone.
 */
final class Timeline(r: RunRecord):
  private val driver = r.load.driver

  /** The axis every time chart of the run shares: from the load's start to its last second or sample. */
  val range: (Double, Double) =
    val ends = r.load.seconds.map(_.second + 1.0) ++ r.samples.map(_.second) :+ r.measuredTo
    (0.0, ends.max)

  /** Consecutive samples that both have a reading, with the seconds between them. */
  private def intervals[A](f: Sample => Option[A]): Seq[(Double, Double, A, A)] =
    val points = r.samples.flatMap(s => f(s).map(s.second -> _))
    points.zip(points.drop(1)).collect { case ((t0, a), (t1, b)) if t1 > t0 => ((t0 + t1) / 2, t1 - t0, a, b) }

  def answers: Seq[Series] =
    val classes = (r.load.seconds.flatMap(_.byClass.keys) ++
      r.samples.flatMap(_.metrics.toSeq.flatMap(_.answeredByClass.keys))).distinct.sorted
    val metrics = intervals(_.metrics)
    classes.flatMap { c =>
      val load = Series(s"$c ($driver)",
        r.load.seconds.map(s => (s.second + 0.5, s.byClass.getOrElse(c, 0L).toDouble)), Timeline.classColor(c))
      val served = metrics.map((t, dt, a, b) => t -> (b.answeredByClass.getOrElse(c, 0.0) -
        a.answeredByClass.getOrElse(c, 0.0)) / dt).filter(_._2 >= 0)
      Seq(load, Series(s"$c (service /metrics)", served, Timeline.classColor(c), dashed = true))
        .filter(_.points.exists(_._2 > 0))
    } ++ unanswered

  /**
   * Requests that got no answer (socket errors, timeouts), by the second they ended in, when the driver counted them
   * per second; the service never sees most of them, so there is no second source.
   */
  private def unanswered: Option[Series] =
    Option.when(r.load.seconds.exists(_.unanswered.isDefined))(Series(s"no answer ($driver)",
      r.load.seconds.map(s => (s.second + 0.5, s.unanswered.getOrElse(0L).toDouble)), Timeline.NoAnswerColor))
      .filter(_.points.exists(_._2 > 0))

  /** p50, p95, p99: from the load driver's per-second figures and from the service's request-latency histogram. */
  def latency: Seq[Series] =
    def perSecond(p: Int, f: LoadSecond => Option[Double]) =
      Series(s"p$p ($driver)", r.load.seconds.flatMap(s => f(s).map(s.second + 0.5 -> _)), Timeline.percentileColor(p))
    val histograms = intervals(_.metrics.map(_.latencyBuckets).filter(_.nonEmpty))
      .flatMap((t, _, a, b) => HistogramQuantile.between(a, b).map(t -> _))
    val fromService = Seq(50, 95, 99).map(p => Series(s"p$p (service histogram)",
      histograms.flatMap((t, h) => HistogramQuantile(p / 100.0, h).map(seconds => t -> seconds * 1000)),
      Timeline.percentileColor(p), dashed = true))
    Seq(perSecond(50, _.p50Ms), perSecond(99, _.p99Ms)) ++ fromService

  /** Clients of the load generator (as it counted them, else as offered) and the service's connections. */
  def concurrency: Seq[Series] =
    val perSecond = r.load.seconds.map(_.second + 0.5)
    val clients =
      if r.load.seconds.exists(_.clients > 0) then
        Series(s"clients ($driver)", perSecond.zip(r.load.seconds.map(_.clients.toDouble)), "#1f77b4")
      else Series(s"clients offered ($driver, all connected at once)", perSecond.map(_ -> r.load.clients.toDouble),
        "#1f77b4", dashed = true)
    def gauge(label: String, f: MetricsReading => Option[Double], color: String) =
      Series(label, r.samples.flatMap(s => s.metrics.flatMap(f).map(s.second -> _)), color)
    val soap = gauge("SOAP calls in flight (service)", _.soapInFlight, "#9467bd")
    Seq(clients, gauge("connections open (service)", _.connectionsOpen, "#2ca02c")) ++
      Option.when(soap.points.exists(_._2 > 0))(soap)

  /** Cores used by the service (its CPU seconds) and by the whole machine, against the cores there are. */
  def cpu: Seq[Series] =
    val service = intervals(_.cpuSeconds).map((t, dt, a, b) => t -> (b - a) / dt)
    val machine = intervals(s => for b <- s.machineBusyTicks; t <- s.machineTotalTicks yield (b, t))
      .collect { case (t, _, (b0, t0), (b1, t1)) if t1 > t0 => t -> (b1 - b0).toDouble / (t1 - t0) * r.info.cores }
    val cores =
      if service.isEmpty && machine.isEmpty then Nil
      else Seq(range._1 -> r.info.cores.toDouble, range._2 -> r.info.cores.toDouble)
    Seq(Series("service", service, "#d62728"), Series("whole machine (load generator too)", machine, "#7f7f7f"),
      Series(s"cores (${r.info.cores})", cores, "#000000", dashed = true))

  /** A pool's busy threads against its size: the thread dumps' counts, and its executor's gauges when it has them. */
  def pool(p: PoolUsage): Seq[Series] =
    Seq(Series("busy (thread dump)", p.busy, "#d62728", filled = true),
      Series("threads (thread dump)", p.threads, "#7f7f7f", dashed = true),
      Series("active (executor)", p.active, "#ff7f0e"),
      Series("size (executor)", p.maximum, "#000000", dashed = true),
      Series("queued (executor)", if p.queued.exists(_._2 > 0) then p.queued else Nil, "#1f77b4", axis = "y2"))

object Timeline:
  val NoAnswerColor = "#000000"

  def classColor(c: String): String = c match
    case "2xx" => "#2ca02c"
    case "3xx" => "#1f77b4"
    case "4xx" => "#ff7f0e"
    case "5xx" => "#d62728"
    case _ => "#9467bd"

  def percentileColor(p: Int): String = p match
    case 50 => "#1f77b4"
    case 95 => "#ff7f0e"
    case _ => "#d62728"
