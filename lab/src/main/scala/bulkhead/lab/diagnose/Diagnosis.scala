package bulkhead.lab.diagnose

import bulkhead.lab.sample.PoolSample

/** The verdict: what caps throughput, the cap Little's law predicts, and how the measurement compares. */
final case class Diagnosis(cap: String, predicted: Double, measured: Double, explanation: String):
  def ratio: Double = measured / predicted

/**
 * Names what caps throughput. Little's law (in flight = throughput x latency) turns each candidate into a cap in
 * requests per second; the candidate with evidence that it is saturated and the smallest cap wins:
 * a pool whose threads are all busy (T / hold time), `max-connections` (M / latency), the third party (clients /
 * its latency), the CPU, or the closed loop itself (clients / latency).
 */
object Diagnosis:
  /** A pool counts as saturated when, in most samples, at least this share of its threads is blocked in work. */
  val SaturatedShare = 0.95

  def apply(o: Observation): Diagnosis =
    val X = o.requestsPerSecond
    val loop = LittlesLaw.clients(o.clients, o.meanLatencySeconds.max(1e-6))

    val saturatedPools: Seq[(Diagnosis, Double)] = o.poolSizes.toSeq.flatMap { (pool, size) =>
      val mine = o.samples.flatMap(_.find(_.pool.endsWith(pool)))
      // Only threads held by blocking work cap throughput at size / hold time; threads busy computing are the CPU.
      val full = mine.filter(s => s.blocked >= math.ceil(size * SaturatedShare))
      if size <= 0 || mine.isEmpty || full.size * 2 < mine.size then None
      else
        val hold = if o.workSeconds > 0 then o.workSeconds else o.meanLatencySeconds
        val cap = LittlesLaw.pool(pool, size, hold)
        val frame = full.flatMap(_.commonBusyFrame).groupMapReduce(identity)(_ => 1)(_ + _).maxByOption(_._2)
          .map(_._1).getOrElse("their work")
        val busy = median(full.map(_.blocked.toDouble)).round
        Some(Diagnosis(s"pool $pool", cap.perSecond, X,
          f"$pool: $busy of $size threads busy in $frame; $size threads / ${fmt(hold)} s = ${cap.perSecond}%.1f req/s cap; " +
            f"measured $X%.1f; ${o.clients} clients need ${o.clients / hold}%.1f") -> cap.perSecond)
    }

    // max-connections caps how many clients are served at once, not the rate: the clients above it wait in the
    // accept queue (their requests time out); the served ones are then limited by whatever else is saturated.
    val connections = for
      max <- o.maxConnections
      open <- o.openConnections
      if o.clients > max && open >= max * 0.98
    yield
      Diagnosis("max-connections", X, X, f"max-connections: $max of ${o.clients} clients served at once " +
        f"($open%.0f connections open in the server, the others wait in the accept queue; ${o.connectErrors} " +
        f"connect errors); the served connections did $X%.1f req/s") -> Double.MaxValue / 2
    val thirdParty = o.thirdPartySeconds.filter(l => l > 0 && o.meanLatencySeconds < l * 1.25).map { l =>
      val cap = o.clients / l
      Diagnosis("third party's latency", cap, X, f"third party: ${o.clients} clients / ${fmt(l)} s latency = " +
        f"$cap%.1f req/s; measured $X%.1f (latency ${fmt(o.meanLatencySeconds)} s)") -> cap
    }

    val cpu = Option.when(o.machineBusy >= 0.9) {
      Diagnosis("CPU", X, X, f"CPU: the machine was ${o.machineBusy * 100}%.0f%% busy (${o.cores} cores shared by " +
        f"service and load generator; service ${o.serviceCores}%.2f cores); latency ${fmt(o.meanLatencySeconds)} s " +
        f"with ${o.clients} clients gives $X%.1f req/s") -> Double.MaxValue
    }

    // With a known work time, the closed loop's bound is clients / work time (the latency it could have); the mean
    // latency measured is what it got, queueing included.
    val ideal = if o.workSeconds > 0 then LittlesLaw.clients(o.clients, o.workSeconds) else loop
    val closedLoop = Diagnosis("the clients (closed loop)", ideal.perSecond, X,
      f"closed loop: ${ideal.what} = ${ideal.perSecond}%.1f req/s; measured $X%.1f at a mean latency of " +
        f"${fmt(o.meanLatencySeconds)} s; no pool saturated") -> Double.MaxValue

    // A saturated resource with a finite cap explains the latency; then max-connections (it caps concurrency), then
    // the CPU and the closed loop.
    val finite = (saturatedPools ++ thirdParty).sortBy(_._2)
    (finite.headOption ++ connections ++ cpu ++ Some(closedLoop)).head._1

  private def median(xs: Seq[Double]): Double =
    val s = xs.sorted
    if s.isEmpty then 0 else s(s.size / 2)

  private def fmt(d: Double): String = if d >= 10 then f"$d%.1f" else f"$d%.3f".reverse.dropWhile(_ == '0').reverse
    .stripSuffix(".")
