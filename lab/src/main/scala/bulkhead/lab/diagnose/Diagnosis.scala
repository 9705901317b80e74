package bulkhead.lab.diagnose

import bulkhead.lab.process.Target
import bulkhead.lab.record.{CpuPerRequest, LogLine, NodeSamples, RunRecord}
import bulkhead.lab.sample.{MetricsReading, PoolSample, PoolSize, Sample}

/**
 * Names what caps a run's throughput from what the run measured, never from a work time a scenario declares.
 *
 * Each resource is read with Little's law on the resource itself: occupancy (busy threads, calls on connections,
 * open connections) = rate through it x hold time, so hold = occupancy / rate and the resource's cap = size / hold. A
 * queue in front of a resource inflates the latency, not the hold. A resource is saturated when its occupancy is at
 * its size in most samples; the saturated resource with the smallest cap is the cap. A bound below the measurement is
 * no bound, so such a candidate is dropped. Errors are never throughput: when they are a material share they are
 * named first. The verdict ends with the setting that serves the offered load and what caps after it.
 *
 * On a cluster each node has its own pools: a resource is read on every node, and one saturated on every node caps
 * the cluster at the sum over the nodes (Little's law on all of its threads: total size / mean hold).
 */
object Diagnosis:
  /** A resource counts as full at this share of its size. */
  val FullShare = 0.9
  /** Measurement noise: a cap more than this below the measurement is not a bound. */
  val Noise = 0.05
  /** Errors above this share of the requests are named first. */
  val MaterialErrors = 0.05
  /** The pool of bulkhead that serves its /metrics, as its gauges label it. */
  val ScrapedOn = "default-dispatcher"
  /** A held resource whose cap is above the measurement by more than this does not outrank a full CPU. */
  val Binding = 0.2
  /** The machine counts as saturated at this busy share. */
  val CpuSaturated = 0.9
  /**
   * The CPU is a candidate cap only from this busy share on: below it the fixed costs (the JIT, the sampler's thread
   * dumps, timers) are a large share of the CPU per answer, and the cap read from it would be far below what the CPU
   * does (a third party at 200 ms with the machine 52 % busy read as a CPU cap of 31 req/s; it served 90).
   */
  val CpuCredible = 0.75
  /** ... and only when the service itself uses at least this share of the cores. */
  val ServiceCpuShare = 0.25

  /**
   * One resource as measured: its size, mean occupancy and rate through it, queue in front of it. On a cluster, a
   * resource of every node is one of `nodes` (size, occupancy, rate and queue summed over them).
   */
  final case class Measured(resource: Resource, subject: String, size: Double, occupancy: Double, rate: Double,
      saturated: Boolean, queued: Option[Double], detail: String, nodes: Int = 1, frame: Option[String] = None,
      heldByGaugeOnly: Boolean = false):
    def hold: Double = occupancy / rate
    def cap: Double = rate * size / occupancy
    def sizePerNode: Double = size / nodes

  def apply(r: RunRecord): Verdict = DiagnosisOf(r).verdict

  /**
   * Every resource the run measured (pools and SOAP host pools of every node, max-connections, the CPU when the
   * machine was busy) with its cap, lowest first, saturated or not: what the verdict chose from.
   */
  def resources(r: RunRecord): Seq[Cap] = DiagnosisOf(r).resources

private final class DiagnosisOf(r: RunRecord):
  import Diagnosis.*

  private val nodes: Seq[NodeSamples] = r.measuredByNode
  /** The front's samples: the node the load went to (the only one, but on a cluster). */
  private val window: Seq[Sample] = nodes.head.samples
  private val X = r.throughput
  private val answeredRate = r.load.answeredPerSecond.max(1e-9)
  private val clients = r.info.clients
  private val latency = (r.load.latency.meanMs / 1000.0).max(1e-6)
  private val bulkhead = r.info.server.contains(Target.Bulkhead)

  private def mean(xs: Seq[Double]) = if xs.isEmpty then 0.0 else xs.sum / xs.size
  private def median(xs: Seq[Double]) = if xs.isEmpty then None else Some(xs.sorted.apply(xs.size / 2))
  private def mostly(xs: Seq[Boolean]) = xs.nonEmpty && xs.count(identity) * 2 >= xs.size

  /** The rate of a cumulative metric over a measured window (first and last sample that has it). */
  private def rateIn(w: Seq[Sample])(f: MetricsReading => Option[Double]): Option[Double] =
    val points = w.flatMap(s => s.metrics.flatMap(f).map(s.second -> _))
    for (t0, v0) <- points.headOption; (t1, v1) <- points.lastOption if t1 > t0 && v1 >= v0 yield (v1 - v0) / (t1 - t0)

  private def gaugeIn(w: Seq[Sample])(f: MetricsReading => Option[Double]): Seq[Double] =
    w.flatMap(_.metrics.flatMap(f))

  /** A gauge of the front (what the load reached: its connections). */
  private def gauge(f: MetricsReading => Option[Double]): Seq[Double] = gaugeIn(window)(f)

  /** A rate summed over the nodes (the third party's calls: each node's SOAP client makes its own). */
  private def rateOverNodes(f: MetricsReading => Option[Double]): Option[Double] =
    Option(nodes.flatMap(n => rateIn(n.samples)(f))).filter(_.nonEmpty).map(_.sum)

  /** Pools of a JVM without gauges, sized from the samples (Jetty's acceptor and selector in its pool's size). */
  private val inferred: Map[String, PoolSize] = PoolSize.infer(window.map(_.pools)).map(p => p.pool -> p).toMap

  /**
   * Pools of the thread dumps, each with its size (from /metrics, else the most threads seen), its occupancy (threads
   * running a task: the executor's active count when it has one, else the threads not idle in the dump) and the rate
   * through it. A pool whose busy threads mostly compute is the CPU's, not a pool that holds requests.
   */
  private def poolsIn(window: Seq[Sample], fallbackRate: Double): Seq[Measured] =
    def rateOf(f: MetricsReading => Option[Double]) = rateIn(window)(f)
    def gauge(f: MetricsReading => Option[Double]) = gaugeIn(window)(f)
    val metricLabels = window.flatMap(_.metrics.toSeq.flatMap(_.pools.map(_.label))).distinct
    val names = window.flatMap(_.pools.filter(_.threads > 0).map(_.pool)).distinct
    names.flatMap { name =>
      val label = metricLabels.find(l => name.endsWith(l))
      val seen = window.map(_.pools.find(_.pool == name))
      val busy = seen.map(_.map(_.busy.toDouble).getOrElse(0.0))
      val blocked = mean(seen.map(_.map(_.blocked.toDouble).getOrElse(0.0)))
      val size = label.flatMap(l => median(gauge(_.pool(l).flatMap(_.max))))
        .getOrElse(seen.flatten.map(_.threads).maxOption.getOrElse(0).toDouble)
      // bulkhead serves /metrics on its default dispatcher: the active count it reports includes the thread serving
      // the scrape, so a dispatcher of one thread always reads full (seed 004's single thread, idle in every dump);
      // there the dumps alone tell whether the thread is held.
      val readsItself = label.contains(ScrapedOn) && size <= 1
      // A fork-join pool counts as active the threads that look for work: when nothing waits in its queue and the
      // dumps see fewer than half of the threads its gauge calls active out of their idle wait, the dumps are read (a
      // default dispatcher read 8 of 8 active, its queue empty and its 8 threads idle in every dump, and was named
      // the cap of a blocking pool's run). With tasks queued the gauge stands: threads parked inside the work (a
      // managed block) look idle to a dump.
      val gauged = label.filterNot(_ => readsItself).map(l => gauge(_.pool(l).flatMap(_.active))).filter(_.nonEmpty)
      val queuedTasks = label.map(l => gauge(_.pool(l).flatMap(_.queued))).filter(_.nonEmpty).map(mean)
      val active = gauged.filterNot(g => mean(busy) < mean(g) * 0.5 && queuedTasks.forall(_ < 1))
      val occupancySeries = active.getOrElse(busy)
      val occupancy = mean(occupancySeries)
      // Held, not computing: most busy threads wait in a blocking frame. With an executor's active count, the threads
      // it calls active but the dump does not see computing are held (a parked wait is not a known blocking frame).
      val computing = mean(seen.map(_.map(p => (p.busy - p.blocked).max(0).toDouble).getOrElse(0.0)))
      val dumpSeesHeld = mean(busy) > 0 && blocked >= mean(busy) * 0.5
      val holding = if active.isDefined then occupancy - computing >= occupancy * 0.5 else dumpSeesHeld
      // A lone named thread (a JVM's housekeeping) is not a pool; bulkhead's pools are known by their gauges. Virtual
      // threads are one per task: every one is busy, none waits for a free one, so they have no size to be full at
      // (what bounds them is a limit in front of them, whose refusals are errors).
      val virtual = seen.flatten.exists(_.virtual)
      if occupancy <= 0 || size <= 0 || !holding || virtual || (label.isEmpty && size < 2) then None
      else
        val counted = label.flatMap(l => rateOf(_.pool(l).flatMap(_.completed))).filter(_ > 0)
        val rate = counted.getOrElse(fallbackRate)
        val subject = label.getOrElse(name)
        val frame = seen.flatten.flatMap(_.commonBusyFrame).groupMapReduce(identity)(_ => 1)(_ + _).maxByOption(_._2)
          .map(_._1).getOrElse("their work")
        Some(Measured(Resource.Pool, subject, size, occupancy, rate, mostly(occupancySeries.map(_ >= size * FullShare)),
          queuedTasks, f"${occupancy}%.1f of ${size}%.0f threads busy (in $frame), ${rate}%.1f tasks/s through it " +
            s"(${if counted.isDefined then "its executor's counter" else "every answer crosses it"})",
          frame = Some(frame), heldByGaugeOnly = active.isDefined && !dumpSeesHeld))
    }

  /**
   * A SOAP host pool: calls on connections (those in flight, up to its size) over the calls the third party answered
   * (a call refused before it was sent held no connection; all calls when the service does not tell them apart).
   */
  private def hostPoolIn(window: Seq[Sample]): Option[Measured] =
    def gauge(f: MetricsReading => Option[Double]) = gaugeIn(window)(f)
    for
      size <- median(gauge(_.soapConnectionsMax))
      inFlight = gauge(_.soapInFlight)
      if inFlight.nonEmpty && size > 0
      rate <- rateIn(window)(_.soapAnswered).filter(_ > 0).orElse(rateIn(window)(_.soapCalls).filter(_ > 0))
      occupancy = mean(inFlight.map(_.min(size)))
      if occupancy > 0
    yield Measured(Resource.HostPool, "", size, occupancy, rate, mostly(inFlight.map(_ >= size * FullShare)),
      Some(mean(inFlight.map(f => (f - size).max(0)))),
      f"${mean(inFlight)}%.1f calls in flight on ${size}%.0f connections, ${rate}%.1f calls/s answered")

  /**
   * Pools and SOAP host pools of every node. One service: its own. A cluster: a resource measured on every node is
   * one resource of N nodes, saturated when it is on every node; one measured on some nodes only stays theirs. A pool
   * without an executor counter is crossed by the node's share of the answers (the router sends round robin).
   */
  private val (pools, hostPools): (Seq[Measured], Seq[Measured]) =
    if nodes.size == 1 then (poolsIn(window, answeredRate), hostPoolIn(window).toSeq)
    else
      val perNode = nodes.map(n => n.node -> (poolsIn(n.samples, answeredRate / nodes.size) ++ hostPoolIn(n.samples)))
      val all = perNode.flatMap((node, ms) => ms.map(node -> _)).groupBy((_, m) => (m.resource, m.subject)).toSeq
        .sortBy((key, _) => (key._1.ordinal, key._2))
      val combined = all.flatMap { (_, measured) =>
        if measured.size == nodes.size then Seq(acrossNodes(measured.map(_._2)))
        else measured.map((node, m) => m.copy(detail = s"on $node only: ${m.detail}"))
      }
      combined.partition(_.resource == Resource.Pool)

  /** One resource of every node as one: sizes, occupancies, rates and queues added; saturated if on every node. */
  private def acrossNodes(each: Seq[Measured]): Measured =
    val n = each.size
    val first = each.head
    val size = each.map(_.size).sum
    val occupancy = each.map(_.occupancy).sum
    val rate = each.map(_.rate).sum
    val unit = if first.resource == Resource.Pool then "threads busy" else "connections in use"
    val through = if first.resource == Resource.Pool then "tasks" else "calls"
    Measured(first.resource, first.subject, size, occupancy, rate, each.forall(_.saturated),
      Option(each.flatMap(_.queued)).filter(_.size == n).map(_.sum),
      f"${occupancy / n}%.1f of ${size / n}%.0f $unit on each of $n nodes (" +
        each.map(m => f"${m.occupancy}%.1f").mkString(", ") + first.frame.fold("")(f => s"; in $f") +
        f"), ${rate}%.1f $through/s through them", nodes = n, frame = first.frame,
      heldByGaugeOnly = each.exists(_.heldByGaugeOnly))

  /**
   * The server's connection limit: connections served (those open, up to the limit: a connection above it is answered
   * 503 and closed, it holds no slot) over the expected answers.
   */
  private val maxConnections: Option[Measured] =
    for
      size <- median(gauge(_.connectionsMax))
      open = gauge(_.connectionsOpen)
      if open.nonEmpty && size > 0
      occupancy = mean(open.map(_.min(size)))
      if occupancy > 0
    yield Measured(Resource.MaxConnections, "", size, occupancy, X.max(1e-9),
      clients > size && mostly(open.map(_ >= size * 0.98)), Some((clients - occupancy).max(0)),
      f"${occupancy}%.0f of ${size}%.0f connections served for $clients clients (${mean(open)}%.0f open)")

  /**
   * The machine's busy share and the service's CPU per answer over the measured load: from the readings just before
   * and just after it where the run has them (a short run sampled every 5 s has one sample inside its window).
   */
  private val (busyShare, serviceMicros): (Option[Double], Option[Double]) =
    val readings = r.beforeLoad.toSeq ++ window ++ r.afterLoad.toSeq
    val ticks = readings.flatMap(s => for b <- s.machineBusyTicks; t <- s.machineTotalTicks yield (b, t))
    val share = for (b0, t0) <- ticks.headOption; (b1, t1) <- ticks.lastOption if t1 > t0
      yield (b1 - b0).toDouble / (t1 - t0)
    // On a cluster every node's CPU: an answer of the front also costs the node whose routee served it.
    val perNode = nodes.map(n => CpuPerRequest.service(r.copy(samples = n.samples, beforeLoad = n.beforeLoad,
      afterLoad = n.afterLoad, otherNodes = Nil)))
    (share, Option.when(perNode.forall(_.isDefined))(perNode.flatten.sum))

  /**
   * The CPU as a resource: cores / machine CPU per answer. Only when the machine is busy (CpuCredible) and the service
   * itself uses a material share of it (ServiceCpuShare of the cores): below the first, fixed costs (the sampler's
   * thread dumps, the JIT, idle timers) dominate the CPU per answer and the cap would be far below what the CPU can
   * do; without the second, what keeps the machine busy is other work (a build beside the run), which slows the
   * service but is not what its throughput is made of.
   */
  private val cpu: Option[Measured] =
    val cores = r.info.cores.toDouble
    val serviceCores = serviceMicros.map(_ * answeredRate / 1e6)
    busyShare.filter(_ >= CpuCredible).filter(_ => serviceCores.forall(_ >= ServiceCpuShare * cores)).map { share =>
      Measured(Resource.Cpu, "", cores, share * cores, answeredRate, share >= CpuSaturated, None,
        f"the machine ${share * 100}%.0f%% busy (${r.info.cores} cores shared by the service and the load generator)" +
          serviceMicros.fold("")(us => f"; the service's CPU ${us}%.0f us per request"))
    }

  /**
   * The third party's latency: the least of what the service measured of it, since a queue in front of a call only adds
   * to it: a blocking call's exchange (its time on a thread), a host pool's hold (calls on connections / answered calls,
   * Little's law), and the calls' whole time.
   */
  private val thirdPartySeconds: Option[Double] =
    def perCall(count: MetricsReading => Option[Double], seconds: MetricsReading => Option[Double]) =
      for n <- rateOverNodes(count).filter(_ > 0); s <- rateOverNodes(seconds) yield s / n
    Seq(perCall(_.soapExchanges, _.soapExchangeSeconds), perCall(_.soapCalls, _.soapSeconds)).flatten
      .++(hostPools.filter(_.nodes == nodes.size).map(_.hold)).minOption

  private val candidates: Seq[Measured] = pools ++ hostPools ++ maxConnections ++ cpu

  lazy val resources: Seq[Cap] = candidates.map(capOf).sortBy(_.perSecond)

  private def order(m: Measured): Int = m.resource.ordinal

  private def capOf(m: Measured): Cap = m.resource match
    case Resource.Cpu =>
      Cap(Resource.Cpu, "", m.cap, f"${m.detail}; ${m.size}%.0f cores / ${m.size / m.cap * 1e6}%.0f us of machine " +
        f"CPU per answer = ${m.cap}%.1f req/s")
    case _ =>
      val size = if m.nodes == 1 then f"${m.size}%.0f" else f"${m.nodes} x ${m.sizePerNode}%.0f ${unitOf(m)}"
      Cap(m.resource, m.subject, m.cap, f"${m.detail}; hold ${fmt(m.hold)} s (Little's law); $size / " +
        f"${fmt(m.hold)} s = ${m.cap}%.1f req/s" + declared(m))

  private def unitOf(m: Measured): String = if m.resource == Resource.Pool then "threads" else "connections"

  /** The seed's own work time, reported beside the measured hold (never used to compute it). */
  private def declared(m: Measured): String =
    r.info.declaredWorkSeconds.filter(_ => m.resource == Resource.Pool).fold("")(w => s" (the seed's work: ${fmt(w)} s)")

  private def valid(c: Double) = c >= X * (1 - Noise)

  /**
   * The saturated resource with the smallest cap. A full CPU is named only when no held resource binds: threads held
   * by blocking work cap throughput whatever the CPU does, and the CPU then shows as what caps after their fix. A held
   * resource binds when its cap is near the measurement (what flows through a full resource is what it lets through).
   * A pool held by its executor's active count alone, its threads not seen waiting in the dumps, does not outrank a
   * full CPU either: a fork-join pool that runs the sockets' actors counts threads active while they look for work or
   * wait for a core.
   */
  private val chosen: Option[Measured] =
    val saturated = candidates.filter(m => m.saturated && valid(m.cap))
    val cpuFull = saturated.exists(_.resource == Resource.Cpu)
    val full = saturated.filterNot(m => cpuFull && m.heldByGaugeOnly).sortBy(_.cap)
    val held = full.filter(m => m.resource != Resource.Cpu && m.cap <= X * (1 + Binding))
    val among = if held.nonEmpty then held else full
    among.headOption.map(least => among.filter(_.cap <= least.cap * (1 + Noise)).minBy(order))

  private val thirdParty: Option[Cap] = thirdPartySeconds.filter(_ >= latency * 0.8).map(l =>
    Cap(Resource.ThirdParty, "", clients / l, f"$clients clients / ${fmt(l)} s of the third party's latency (its " +
      f"calls measured by the service's SOAP client) = ${clients / l}%.1f req/s; no pool saturated"))

  private val loadGenerator: Cap =
    Cap(Resource.LoadGenerator, "", clients / latency, f"closed loop: $clients clients / ${fmt(latency)} s mean " +
      f"latency = ${clients / latency}%.1f req/s; no resource saturated")

  lazy val verdict: Verdict =
    val cap = chosen.map(capOf).orElse(thirdParty.filter(c => valid(c.perSecond))).getOrElse(loadGenerator)
    val logFix = errorsFix
    val fix = chosen.flatMap(fixFor).orElse(logFix)
    // A fix read from the log sizes the host pool: what caps next is what caps once it is sized.
    val logFixed = logFix.filter(_ => chosen.isEmpty).flatMap(_ => hostPools.headOption)
    val next = chosen.orElse(logFixed).filter(_ => fix.isDefined).flatMap(nextAfter)
      .orElse(Option.when(chosen.isEmpty)(otherCaps(Set.empty)).flatten)
    // Clients above max-connections wait in the accept queue and time out: their errors are its symptom, not a cause.
    val (errs, why) = if chosen.exists(_.resource == Resource.MaxConnections) then
      (None, cap.copy(why = cap.why + failures.fold("")(e => s" (the waiting clients' $e)")))
    else (errors, cap)
    Verdict(why, X, errs, fix, next, serviceMicros)

  /** What caps once `b` is sized by its fix: b at its new size, every other resource, and the clients. */
  private def nextAfter(b: Measured): Option[Cap] =
    val newSize = fixedSize(b).toDouble * b.nodes
    // The clients not holding b wait in front of it (closed loop, b binding). An executor's queued tasks count only
    // the waiting work that reached it: a request still in its socket, read by actors on the same dispatcher, holds
    // no task there, and the default dispatcher's fix was predicted at half what its re-run served.
    val queued = b.queued.getOrElse(0.0).max(clients - b.occupancy).max(0)
    // Little's law's latency (clients / rate), not the driver's mean, which also counts connecting and the requests
    // cut at the run's end: 0.90 s against 0.83 s made a 0.10 s hold look like 0.18 s without the queue.
    val unqueued = ((clients - queued) / answeredRate).max(b.hold)
    val loop = Cap(Resource.LoadGenerator, "", clients / unqueued, f"$clients clients / ${fmt(unqueued)} s latency " +
      f"without the queue in front of ${capOf(b).name} = ${clients / unqueued}%.1f req/s")
    val (at, total) = if b.nodes == 1 then (f"${newSize}%.0f", f"${newSize}%.0f")
      else (s"${fixedSize(b)} per node", s"${b.nodes} x ${fixedSize(b)}")
    val resized = capOf(b.copy(size = newSize)).copy(why = f"${b.subject} at $at: $total / " +
      f"${fmt(b.hold)} s = ${newSize / b.hold}%.1f req/s")
    (otherCaps(Set(b)).toSeq :+ loop :+ resized.copy(perSecond = newSize / b.hold)).minByOption(_.perSecond)

  private def otherCaps(except: Set[Measured]): Option[Cap] =
    (candidates.filterNot(except).map(capOf).filter(c => valid(c.perSecond)) ++ thirdParty.filter(_ => except.nonEmpty))
      .minByOption(_.perSecond)

  /**
   * A resource's size (per node) that holds every client: one per client, spread over the nodes (the front's router
   * sends round robin), and at least one more than now.
   */
  private def fixedSize(m: Measured): Int =
    math.ceil(clients.toDouble / m.nodes).toInt.max(m.sizePerNode.toInt + 1)

  private def fixFor(m: Measured): Option[Fix] =
    val n = fixedSize(m)
    val why = f"$clients clients x ${fmt(m.hold)} s hold need $clients in flight" +
      (if m.nodes == 1 then "" else s", $n on each of ${m.nodes} nodes")
    m.resource match
      case Resource.Pool if bulkhead && m.subject == "blocking-pool" =>
        Some(Fix(Seq("--blocking-pool-size", n.toString), s"blocking-pool of $n threads (one per in-flight request: $why)"))
      case Resource.Pool if bulkhead && m.subject == "default-dispatcher" =>
        Some(Fix(Seq("--parallelism-min", n.toString, "--parallelism-max", n.toString),
          s"default dispatcher of $n threads ($why); better, move the blocking work to a dedicated pool (/work/pool)"))
      case Resource.Pool if bulkhead && m.subject == "work-queue" =>
        Some(Fix(Seq("--set", s"bulkhead.enrichment.soap.work-queue.max=$n", "--set",
          s"bulkhead.enrichment.soap.work-queue.core=$n"), s"SOAP work queue of $n threads ($why)"))
      case Resource.Pool =>
        // The threads the server lends to other roles (Jetty's acceptor and selector) come out of the same maximum.
        val lent = inferred.get(m.subject).fold(0)(p => p.size - p.workers)
        Some(Fix(Nil, s"${poolSetting(m.subject)} >= ${n + lent} ($why${if lent > 0 then s", plus $lent it lends to " +
          "acceptors and selectors" else ""})"))
      case Resource.HostPool if bulkhead =>
        Some(Fix(Seq("--set", s"bulkhead.enrichment.soap.max-connections=$n"),
          s"SOAP host pool of $n connections (bulkhead.enrichment.soap.max-connections; $why)"))
      case Resource.MaxConnections if bulkhead =>
        Some(Fix(Seq("--max-connections", n.toString), s"max-connections >= $n (one per client)"))
      case Resource.MaxConnections => Some(Fix(Nil, s"the server's connection limit >= $n (one per client)"))
      case _ => None

  /** The setting that sizes a pool of a server the lab did not write, by the pool's name. */
  private def poolSetting(pool: String): String =
    if pool.startsWith("qtp") then s"Jetty's QueuedThreadPool maxThreads ($pool)"
    else if pool.contains("-exec") then s"Tomcat's maxThreads ($pool)"
    else if pool.contains("dispatcher") then s"the dispatcher's parallelism or pool size ($pool)"
    else s"the maximum size of pool $pool"

  /** The failed share and what the answers and the log say, when material: a verdict's errors, or a symptom's. */
  private val failures: Option[String] =
    val share = r.load.answers.failedShare(r.info.expectedClass)
    Option.when(share >= MaterialErrors) {
      val top = r.log.sortBy(-_.count).take(2).map(l => s"'${l.text.take(160)}' x ${l.count}")
      f"${share * 100}%.1f%% of the requests did not get ${r.info.expectedClass} " +
        s"(${r.load.answers.describe})" + (if top.isEmpty then "" else s"; the service's log: ${top.mkString(", ")}")
    }

  /** The failures as the verdict names them, ahead of any cap. */
  private val errors: Option[String] = failures.map(f => s"errors first: $f")

  /** A fix the service's own log points at, when errors are the verdict. */
  private def errorsFix: Option[Fix] =
    if errors.isEmpty || !bulkhead then None
    else r.log.sortBy(-_.count).map(_.text).collectFirst {
      case t if t.contains("max-open-requests") =>
        Fix(Seq("--set", s"bulkhead.enrichment.soap.max-connections=$clients"),
          s"SOAP host pool >= $clients connections: the pool refused calls above its open-request limit")
    }

  private def fmt(d: Double): String =
    if d >= 10 then f"$d%.1f" else f"$d%.3f".reverse.dropWhile(_ == '0').reverse.stripSuffix(".")
