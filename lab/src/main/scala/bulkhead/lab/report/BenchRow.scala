package bulkhead.lab.report

import bulkhead.lab.model.{Bound, Target}
import bulkhead.lab.record.{CpuPerRequest, RunRecord}

/**
 * One case of a benchmark on one server, aggregated over its rounds (one [[RunRecord]] each): medians of throughput,
 * CPU per request and latency, totals of errors, maxima of threads and memory. `target` is the server's name as the
 * records give it.
 */
final case class BenchRow(name: String, target: String, records: Seq[RunRecord]):
  require(records.nonEmpty, s"$name on $target: no round recorded")
  private val rounds = records.sortBy(BenchRow.startedMillis)

  /** The server, when it is one the lab starts. */
  def server: Option[Target] = Target.named(target)

  def throughputs: Seq[Double] = rounds.map(_.throughput)
  def throughput: Double = BenchRow.median(throughputs)

  /** The server's CPU per answer in each round, microseconds. */
  def cpuMicrosPerRound: Seq[Option[Double]] = rounds.map(CpuPerRequest.service)
  def cpuMicros: Option[Double] = BenchRow.medianOption(cpuMicrosPerRound.flatten)

  /** The part of the server's CPU per answer (microseconds) its JIT compiler threads took, median over rounds. */
  def jitMicros: Option[Double] = BenchRow.medianOption(rounds.flatMap(CpuPerRequest.jit))

  /** The lab's own CPU per answer (its sampling), microseconds, median over rounds. */
  def labMicros: Option[Double] = BenchRow.medianOption(rounds.flatMap(CpuPerRequest.lab))

  /** The server's safepoint time (GCs and the sampler's thread dumps) in ms per second of run, median over rounds. */
  def safepointMsPerSecond: Option[Double] = BenchRow.medianOption(rounds.flatMap(CpuPerRequest.safepointMsPerSecond))

  /** How long a sample stopped the server (its safepoints), ms: the mean per sample, median over rounds. */
  def pausePerSampleMs: Option[Double] = BenchRow.medianOption(rounds.flatMap(r =>
    r.sampling.filter(_.samples > 0).map(s => s.pausesMs / s.samples)))

  /** The share of the run the samples stopped the server, median over rounds. */
  def pausedShare: Option[Double] = BenchRow.medianOption(rounds.flatMap(_.sampling.map(_.pausedShare)))

  /** The warm-up each round ran (longer than asked while the JIT had not settled), seconds. */
  def warmupSeconds: Seq[Double] = rounds.map(_.info.warmupSeconds)

  /** CPU per answer of each process the service depends on (the stub, redis-server), medians over the rounds. */
  def dependencyMicros: Map[String, Double] =
    val perRound = rounds.map(CpuPerRequest.dependencies)
    perRound.flatMap(_.keys).distinct.flatMap(n => BenchRow.medianOption(perRound.flatMap(_.get(n))).map(n -> _)).toMap

  def p50Ms: Double = BenchRow.median(rounds.map(_.load.latency.p50Ms))
  def p99Ms: Double = BenchRow.median(rounds.map(_.load.latency.p99Ms))

  /** Requests with no answer (socket errors, timeouts), over every round. */
  def unanswered: Long = rounds.map(_.load.answers.unanswered).sum
  /** Answers outside the expected status class, over every round. */
  def unexpected: Long = rounds.map(r => r.load.answers.answered - r.load.answers.expected(r.info.expectedClass)).sum

  private def readings(r: RunRecord) = r.samples ++ r.afterLoad
  def maxPlatformThreads: Option[Int] = rounds.flatMap(readings).flatMap(_.platformThreads).maxOption
  def maxResidentMb: Option[Double] = rounds.flatMap(readings).flatMap(_.residentMb).maxOption

  /** Peak busy threads of each of the service's pools (its /metrics), over every round. */
  def poolPeaks: Map[String, Double] =
    rounds.flatMap(_.samples).flatMap(_.metrics.toSeq.flatMap(_.pools)).flatMap(p => p.active.map(p.label -> _))
      .groupMapReduce(_._1)(_._2)(_ max _).filter(_._2 > 0)

  /**
   * This row's figure over `other`'s, round by round (the rounds of a bench are interleaved: round i of both ran
   * minutes apart at most, on the same machine state), and the median of those ratios. On a machine whose speed drifts
   * from round to round (another tenant's load), a ratio of medians mixes slow and fast rounds; paired, the drift
   * cancels. None when no round has the figure on both.
   */
  def pairedRatios(other: BenchRow, figure: RunRecord => Option[Double]): Option[(Double, Seq[Double])] =
    val ratios = rounds.zip(other.rounds).flatMap((a, b) =>
      for x <- figure(a); y <- figure(b) if y > 0 && !x.isNaN yield x / y)
    BenchRow.medianOption(ratios).map(_ -> ratios)

  def bound: Option[Bound] = rounds.head.info.declaredBound
  def ratioToBound: Option[Double] = bound.map(b => throughput / b.perSecond)

  /**
   * `pool-200: 1,843.2 req/s = 0.922 of the bound, 212.4 us CPU/request, p50 532.1 ms, p99 610.0 ms`, then what
   * else the rounds saw (the dependencies' CPU, errors, threads, memory).
   */
  def line(label: String): String =
    val deps = dependencyMicros.toSeq.sortBy(_._1).map((n, us) => f"$n $us%.1f us").mkString(", ")
    f"$label: $throughput%,.1f req/s" + ratioToBound.fold("")(r => f" = $r%.3f of the bound") +
      cpuMicros.fold(", CPU per request not measured")(us => f", $us%.1f us CPU/request") +
      jitMicros.filter(_ >= 0.05).fold("")(us => f" (JIT $us%.1f us)") +
      (if deps.isEmpty then "" else s" ($deps per request)") +
      f", p50 $p50Ms%.1f ms, p99 $p99Ms%.1f ms" +
      (if unanswered + unexpected > 0 then f", $unanswered%,d unanswered, $unexpected%,d not ${rounds.head.info.expectedClass}"
       else "") +
      maxPlatformThreads.fold("")(t => s", platform threads $t") + maxResidentMb.fold("")(m => f", RSS $m%.0f MB") +
      (if rounds.size > 1 then s" (median of ${rounds.size} rounds)" else "")

object BenchRow:
  /** Rows of a benchmark's records, one per (case, server), in the order they first ran. */
  def of(records: Seq[RunRecord]): Seq[BenchRow] =
    records.groupBy(r => (r.info.name, r.info.target)).toSeq
      .map { case ((name, target), rs) => BenchRow(name, target, rs) }
      .sortBy(row => BenchRow.startedMillis(row.rounds.head))

  /** When a run started (its records give ISO instants), for ordering rounds and cases as they ran. */
  def startedMillis(r: RunRecord): Long =
    try java.time.Instant.parse(r.info.startedAt).toEpochMilli catch case _: java.time.DateTimeException => 0L

  def median(xs: Seq[Double]): Double = medianOption(xs).getOrElse(Double.NaN)

  def medianOption(xs: Seq[Double]): Option[Double] =
    val s = xs.filterNot(_.isNaN).sorted
    if s.isEmpty then None
    else if s.size % 2 == 1 then Some(s(s.size / 2))
    else Some((s(s.size / 2 - 1) + s(s.size / 2)) / 2)
