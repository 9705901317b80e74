package bulkhead.lab.record

import bulkhead.lab.model.{Answers, Latencies, LoadFigures}
import bulkhead.lab.sample.{EventLoops, PoolSample, Sample, TimedDump, WaitGraph}

/**
 * Dumps taken without the lab (a production series, a JFR recording) as a run, so that the diagnosis reads them as it
 * reads a run it sampled: each dump a sample (its pools and the resources its threads wait on), the rate through the
 * service the one given (`--rate`: a dump holds no rate), the clients the requests in flight (the busy threads the
 * dumps show, on average). The figures hold a rate as answers over a time: the rate is kept as answers over a nominal
 * [[Seconds]], which keeps it to a thousandth of a request per second. Without a rate the run says 1 req/s: which
 * resource is full, and its chain, do not depend on the rate (a cap is size / occupancy x rate, set against the rate),
 * only its hold and cap do, which a reader without a rate must not show.
 */
object OfflineRun:
  /** The nominal span of the figures that carry the given rate. */
  val Seconds = 1000.0

  /**
   * The rate of 2xx answers the service's own request counter (`http_server_requests_seconds_count`) gives over
   * scrapes taken beside the dumps: the first and the last that have it, at their dumps' times.
   */
  def meteredRate(dumps: Seq[TimedDump]): Option[Double] =
    val points = dumps.flatMap(d => d.metrics.map(m => d.second -> m.answeredByClass.getOrElse("2xx", 0.0)))
      .filter(_._2 > 0)
    for (t0, n0) <- points.headOption; (t1, n1) <- points.lastOption if t1 > t0 && n1 > n0 yield (n1 - n0) / (t1 - t0)

  def apply(name: String, source: String, dumps: Seq[TimedDump], rate: Option[Double], jdk: String = "?"): RunRecord =
    val loops = dumps.foldLeft(Set.empty[String])((seen, d) => seen ++ EventLoops.frames(d.dump.threads))
    val samples = dumps.map(d => Sample(d.second, PoolSample.of(d.dump, loops), None, None, None, None, None, d.metrics,
      resources = WaitGraph.of(d.dump)))
    val inFlight = samples.map(_.pools.map(_.busy).sum).sum.toDouble / samples.size.max(1)
    val perSecond = rate.getOrElse(1.0)
    val span = dumps.map(_.second).maxOption.getOrElse(0.0)
    val figures = LoadFigures("recorded", rate.fold(s"$source; no rate given (1 req/s nominal)")(r => f"$source; $r%.2f req/s given"),
      math.round(inFlight).toInt, Seconds, Answers(Map("2xx" -> math.round(perSecond * Seconds)), 0, 0, 0, 0),
      Latencies.Empty, Nil)
    val info = RunInfo(name, source, "recorded", "", figures.description, figures.clients, Nil, None, None, None, None,
      "2xx", None, source, jdk, 0, "")
    // From half a second before the first dump: every dump is of the measured phase (none is taken as a load starts).
    RunRecord(info, figures, samples, 0.5, span, Nil, Nil)
