package bulkhead.lab.diagnose

import bulkhead.lab.diagnose.Measured.*
import bulkhead.lab.model.{FixKind, MetricsReading, Resource, Target}
import bulkhead.lab.record.{CpuPerRequest, LoadWindow, NodeSamples, RunRecord}
import bulkhead.lab.sample.{Sample, WaitKind}

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
  /** A resource binds a run when the measurement is at least this share of its cap (a pool a quarter idle did not). */
  val BindsFrom = 0.85
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
  /**
   * The rates Little's law reads the samples against: those of the stretch the samples read where the driver counted
   * its answers second by second ([[SampledRates]]), else the whole run's.
   */
  private val sampled = r.sampledRates
  private val X = sampled.fold(r.throughput)(_.expected)
  private val answeredRate = sampled.fold(r.load.answeredPerSecond)(_.answered).max(1e-9)
  private val clients = r.info.clients
  private val latency = (r.load.latency.meanMs / 1000.0).max(1e-6)
  private val bulkhead = r.info.server.contains(Target.Bulkhead)

  private val path = r.info.url.dropWhile(_ != '/').dropWhile(_ == '/').dropWhile(_ != '/')
  private def rateIn(w: Seq[Sample])(f: MetricsReading => Option[Double]) = ThreadPoolReader.rateIn(w)(f)
  private def gaugeIn(w: Seq[Sample])(f: MetricsReading => Option[Double]) = ThreadPoolReader.gaugeIn(w)(f)

  /** A gauge of the front (what the load reached: its connections). */
  private def gauge(f: MetricsReading => Option[Double]): Seq[Double] = gaugeIn(window)(f)

  /** A rate summed over the nodes (the third party's calls: each node's SOAP client makes its own). */
  private def rateOverNodes(f: MetricsReading => Option[Double]): Option[Double] =
    Option(nodes.flatMap(n => rateIn(n.samples)(f))).filter(_.nonEmpty).map(_.sum)

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

  private lazy val view = RunView(window, answeredRate, clients, path, bulkhead, X, r.info.cores, busyShare,
    serviceMicros)
  private def hostPoolIn(w: Seq[Sample]): Seq[Measured] = HostPoolReader.read(view.copy(window = w))

  /**
   * Pools and SOAP host pools of every node. One service: its own. A cluster: a resource measured on every node is
   * one resource of N nodes, saturated when it is on every node; one measured on some nodes only stays theirs. A pool
   * without an executor counter is crossed by the node's share of the answers (the router sends round robin).
   */
  private val (pools, hostPools): (Seq[Measured], Seq[Measured]) =
    if nodes.size == 1 then (ThreadPoolReader.measure(window, answeredRate), hostPoolIn(window))
    else
      val perNode = nodes.map(n =>
        n.node -> (ThreadPoolReader.measure(n.samples, answeredRate / nodes.size) ++ hostPoolIn(n.samples)))
      val all = perNode.flatMap((node, ms) => ms.map(node -> _)).groupBy((_, m) => (m.resource, m.subject)).toSeq
        .sortBy((key, _) => (key._1.ordinal, key._2))
      val combined = all.flatMap { (_, measured) =>
        if measured.size == nodes.size then Seq(acrossNodes(measured.map(_._2)))
        else measured.map((node, m) => m.copy(detail = s"on $node only: ${m.detail}"))
      }
      combined.partition(m => m.resource == Resource.Pool || m.resource == Resource.EventLoop)

  /** One resource of every node as one: sizes, occupancies, rates and queues added; saturated if on every node. */
  private def acrossNodes(each: Seq[Measured]): Measured =
    val n = each.size
    val first = each.head
    val size = each.map(_.size).sum
    val occupancy = each.map(_.occupancy).sum
    val rate = each.map(_.rate).sum
    val threads = first.resource == Resource.Pool || first.resource == Resource.EventLoop
    val unit = if first.resource == Resource.HostPool then "connections in use" else if threads then "threads busy"
      else s"${unitOf(first)} held"
    val through = if first.resource == Resource.HostPool then "calls" else if threads then "tasks" else "requests"
    Measured(first.resource, first.subject, size, occupancy, rate, each.forall(_.saturated),
      Option(each.flatMap(_.queued)).filter(_.size == n).map(_.sum),
      f"${occupancy / n}%.1f of ${size / n}%.0f $unit on each of $n nodes (" +
        each.map(m => f"${m.occupancy}%.1f").mkString(", ") + first.frame.fold("")(f => s"; in $f") +
        f"), ${rate}%.1f $through/s through them", nodes = n, frame = first.frame,
      heldByGaugeOnly = each.exists(_.heldByGaugeOnly), key = first.key, waitsOn = first.waitsOn,
      ownRate = each.forall(_.ownRate), readBy = first.readBy, holdersDo = first.holdersDo,
      chain = first.chain.headOption.map(c => s"$c (each of $n nodes)").toSeq ++ first.chain.drop(1))


  private val cpu: Seq[Measured] = CpuReader.read(view)
  private val maxConnections: Seq[Measured] = MaxConnectionsReader.read(view)

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

  /**
   * Resources found from what the front's threads wait on (locks, semaphores, connection pools...). One whose holders
   * mostly queue on another found resource is that one's symptom: the chain leads past it. Of several nodes (a
   * cluster, a fleet of replicas), one found on every node is one resource of them all, as a pool is.
   */
  private val (waited, cpuSymptoms): (Seq[Measured], Seq[Measured]) =
    val front = ResourceReader.FromWaits.flatMap(_.read(view))
    val all = if nodes.size == 1 then front else
      val each = nodes.map(n => ResourceReader.FromWaits.flatMap(_.read(view.copy(window = n.samples,
        answeredRate = answeredRate / nodes.size))))
      front.map(m => each.map(_.find(o => o.resource == m.resource && o.key == m.key)))
        .zip(front).map((found, m) => if found.forall(_.isDefined) then acrossNodes(found.flatten) else m)
    val keys = all.flatMap(_.key).toSet
    // With every core busy, a resource whose holders compute holds each for its work and for its turn on a core: a
    // lock convoy of threads descheduled inside a short section is the CPU's, not the lock's.
    val cpuFull = cpu.exists(_.saturated)
    all.filterNot(_.waitsOn.exists(keys)).partition(m => !(cpuFull && m.holdersDo.contains(WaitKind.Running.key)))

  /** A pool that a resource found from waits names (the completers of a future) is read there, with its chain. */
  private val ownPools = pools.filterNot(p => waited.exists(w => w.resource == p.resource && w.subject == p.subject))

  private val candidates: Seq[Measured] = ownPools ++ waited ++ hostPools ++ maxConnections ++ cpu

  lazy val resources: Seq[Cap] = candidates.map(capOf).sortBy(_.perSecond)

  private def order(m: Measured): Int = m.resource.ordinal

  private def capOf(m: Measured): Cap = (m.resource match
    case Resource.Cpu =>
      Cap(Resource.Cpu, "", m.cap, f"${m.detail}; ${m.size}%.0f cores / ${m.size / m.cap * 1e6}%.0f us of machine " +
        f"CPU per answer = ${m.cap}%.1f req/s")
    case _ =>
      val size = if m.nodes == 1 then f"${m.size}%.0f" else f"${m.nodes} x ${m.sizePerNode}%.0f ${unitOf(m)}"
      Cap(m.resource, m.subject, m.cap, f"${m.detail}; hold ${fmt(m.hold)} s (Little's law); $size / " +
        f"${fmt(m.hold)} s = ${m.cap}%.1f req/s" + declared(m))
  ).copy(size = Some(m.size), occupancy = Some(m.occupancy), hold = Some(m.hold))

  private def unitOf(m: Measured): String = readerOf(m).map(_.unit).getOrElse("connections")

  private def readerOf(m: Measured): Option[ResourceReader] =
    m.readBy.orElse(ResourceReader.All.find(_.resource == m.resource))

  /** The seed's own work time, reported beside the measured hold (never used to compute it). */
  private def declared(m: Measured): String =
    r.info.declaredWorkSeconds.filter(_ => m.resource == Resource.Pool).fold("")(w => s" (the seed's work: ${fmt(w)} s)")

  private def valid(c: Double, through: Double = X) = c >= through * (1 - Noise)

  /** A resource caps a run only when what flowed through it is near its cap: one with room left did not bind it. */
  private def binds(c: Double, through: Double = X) = c <= through / Diagnosis.BindsFrom

  /**
   * What flowed through `m`: the rate its own counter measured (a pool only some routes use), else the run's
   * throughput (every answer crosses it).
   */
  private def through(m: Measured): Double = if m.ownRate then m.rate else X

  /**
   * The saturated resource with the smallest cap. A full CPU is named only when no held resource binds: threads held
   * by blocking work cap throughput whatever the CPU does, and the CPU then shows as what caps after their fix. A held
   * resource binds when its cap is near the measurement (what flows through a full resource is what it lets through).
   * A pool held by its executor's active count alone, its threads not seen waiting in the dumps, does not outrank a
   * full CPU either: a fork-join pool that runs the sockets' actors counts threads active while they look for work or
   * wait for a core.
   */
  private val chosen: Option[Measured] =
    val saturated = candidates.filter(m => m.saturated && valid(m.cap, through(m)) && binds(m.cap, through(m)))
    val cpuFull = saturated.exists(_.resource == Resource.Cpu)
    val full = saturated.filterNot(m => cpuFull && m.heldByGaugeOnly).sortBy(_.cap)
    val held = full.filter(m => m.resource != Resource.Cpu && m.cap <= through(m) * (1 + Binding))
    val among = if held.nonEmpty then held else full
    among.headOption.map(least => among.filter(_.cap <= least.cap * (1 + Noise)).minBy(order))

  private val thirdParty: Option[Cap] = thirdPartySeconds.filter(_ >= latency * 0.8).map(l =>
    Cap(Resource.ThirdParty, "", clients / l, f"$clients clients / ${fmt(l)} s of the third party's latency (its " +
      f"calls measured by the service's SOAP client) = ${clients / l}%.1f req/s; nothing in the service queues them"))

  /**
   * Requests held in the service's threads while nothing in front of them is full, from what those threads wait on:
   * a remote call or a completion found from waits (their own reading), else the most common wait of the busy threads
   * of the pools that are not event loops (a sleep, a socket read, a parked wait), when they hold at least half of the
   * clients' requests. Never the load generator: the threads wait on something, and the verdict says what and where.
   */
  private val heldWait: Option[(Cap, Seq[String])] =
    val unlimited = waited.filter(m => !m.saturated && (m.resource == Resource.ThirdParty || m.resource == Resource.Wait))
      .sortBy(-_.occupancy).headOption
    unlimited.map { m =>
      val c = capOf(m).copy(perSecond = (clients / m.hold).max(X))
      (c.copy(why = f"${m.detail}; Little's law: ${m.occupancy}%.1f in flight / ${X}%.1f req/s = ${fmt(m.hold)} s " +
        f"each; $clients clients / ${fmt(m.hold)} s = ${c.perSecond}%.1f req/s"), m.chain)
    }.orElse {
      val serving = window.map(_.pools.filterNot(p => p.eventLoop || p.virtual && p.busy == 0))
      val held = serving.map(_.flatMap(p => p.waits.filter((k, _) => k != WaitKind.Running.key).map((k, n) => (p.pool, k, n))))
      val total = mean(held.map(_.map(_._3.toDouble).sum))
      Option.when(total >= clients * 0.5 && total > 0) {
        val byWait = held.flatten.groupMapReduce(_._2)(_._3)(_ + _)
        val (what, _) = byWait.maxBy(_._2)
        val pools = held.flatten.filter(_._2 == what).groupMapReduce(_._1)(_._3)(_ + _).toSeq.sortBy(-_._2)
          .map((p, n) => f"${n.toDouble / window.size}%.1f in $p")
        val site = window.flatMap(_.pools).filter(p => p.waits.contains(what)).flatMap(_.commonSite)
          .groupMapReduce(identity)(_ => 1)(_ + _).maxByOption(_._2).map(_._1)
        val hold = total / X.max(1e-9)
        val doing = WaitResources.describe(what, Map.empty) + site.fold("")(f => s" in $f")
        // Clients whose requests were not in these threads: the load reached the service only in part.
        val outside = Option.when(total < clients * Diagnosis.FullShare)(clients - total).fold("")(n =>
          f"; $n%.0f of the $clients clients' requests were outside these threads (connecting, in the kernel's " +
            "accept queue, or between an answer and the next request): what they waited on there the dumps do not show")
        val cap = Cap(Resource.Wait, "", (clients / hold).max(X), f"$total%.1f requests held in threads that $doing " +
          s"(${pools.mkString(", ")}), none queued in front of them: Little's law: " + f"$total%.1f / $X%.1f req/s = " +
          f"${fmt(hold)} s each; $clients clients / ${fmt(hold)} s = ${(clients / hold).max(X)}%.1f req/s" + outside)
        (cap, Seq(f"threads that $doing: ${pools.mkString(", ")}", s"hold ${fmt(hold)} s, nothing queued in front " +
          "of them"))
      }
    }

  /**
   * Why no verdict can be read from the threads, when no sample read the load (the only one was taken as it started,
   * before any request): "idle" would be a guess.
   */
  private val unsampled: Option[String] =
    Option.when(!LoadWindow.sampled(r.samples, r.measuredFrom, r.measuredTo)) {
      val at = r.samples.map(s => f"${s.second}%.1f").mkString(", ")
      f"no sample fell inside the load (${r.measuredFrom}%.1f to ${r.measuredTo}%.1f s; samples at: " +
        s"${if at.isEmpty then "none" else at + " s"}), so what held its requests was not seen: run it longer or " +
        "sample more often"
    }

  /**
   * A closed loop serves what its clients offer: its bound is Little's law on the run's own figures (clients / the
   * time each request took, clients / throughput), never the driver's mean latency, which also counts connecting and
   * the requests cut at the end.
   */
  private val loadGenerator: Cap =
    val perRequest = clients / X.max(1e-9)
    val roomy = candidates.filter(m => m.saturated && valid(m.cap, through(m)) && !binds(m.cap, through(m)))
      .map(capOf)
    Cap(Resource.LoadGenerator, "", X, f"closed loop: $clients clients / ${fmt(perRequest)} s per request " +
      f"(Little's law on the measurement) = ${X}%.1f req/s; " + (if unsampled.nonEmpty then unsampled.get
        else if roomy.isEmpty then "the service's threads " +
        "were mostly idle and nothing in it was full: the load did not fill it" else
        roomy.map(c => f"${c.name} was full but its cap ${c.perSecond}%.1f is above what it let through").mkString("; ") +
          busyShare.fold("")(b => f"; the machine ${b * 100}%.0f%% busy")))

  /**
   * What caps when nothing binds (the third party, a wait, or the load generator): more clients or a higher rate,
   * and the rate that would find the cap (the least cap measured above this load).
   */
  private def moreLoad(cap: Cap): Fix =
    val above = otherCaps(Set.empty).filter(_.perSecond > X * (1 + Noise))
    // The service's own CPU per answer on all the cores (other work on the machine is not the service's cap).
    val cpuRoom = Option.when(!cpu.exists(_.saturated))(serviceMicros).flatten.filter(_ > 0)
      .map(us => (r.info.cores * 1e6 / us, f"the CPU at about ${r.info.cores * 1e6 / us}%.0f req/s (${r.info.cores} " +
        f"cores / ${us}%.0f us of the service's CPU per request)")).filter(_._1 > X * (1 + Noise))
    val next = above.map(c => (c.perSecond, s"${c.name} at ${c.perSecond.round} req/s")).toSeq ++ cpuRoom
    val (rate, what) = next.minByOption(_._1).getOrElse((X * 2, "no cap measured above this load"))
    val why = cap.resource match
      case Resource.LoadGenerator if unsampled.nonEmpty => unsampled.get
      case Resource.LoadGenerator => "the service's threads were mostly idle: the load did not fill it"
      case _ => "nothing in the service queues the requests in front of what they wait on"
    Fix(Nil, f"more clients or a higher rate: $why; the next cap: $what; about ${math.ceil(clients * rate / X.max(1e-9))}%.0f " +
      f"clients, or an open loop stepping up to ${rate * 1.2}%.0f req/s (`lab capacity --max-rate ${math.ceil(rate * 1.2)}%.0f`), " +
      "finds it", FixKind.MoreLoad)

  lazy val verdict: Verdict =
    val unbound = thirdParty.filter(c => valid(c.perSecond)).map(c => (c, Nil)).orElse(heldWait)
    val cap = chosen.map(capOf).orElse(unbound.map(_._1)).getOrElse(loadGenerator)
    val logFix = errorsFix
    val fix = chosen.flatMap(fixFor).orElse(logFix).orElse(Option.when(chosen.isEmpty && errors.isEmpty)(moreLoad(cap)))
      .orElse(errors.map(_ => failuresFix))
    // A fix read from the log sizes the host pool: what caps next is what caps once it is sized.
    val logFixed = logFix.filter(_ => chosen.isEmpty).flatMap(_ => hostPools.headOption)
    // A shorter critical section, or cheaper work, has no size the lab can predict from: no next cap.
    val next = chosen.orElse(logFixed).filter(_ => fix.exists(f => f.kind != FixKind.CriticalSection &&
        f.kind != FixKind.CheaperWork)).flatMap(nextAfter)
      .orElse(Option.when(chosen.isEmpty && X > 0)(otherCaps(Set.empty)).flatten)
    // Clients above max-connections wait in the accept queue and time out: their errors are its symptom, not a cause.
    // Requests above a binding resource that the service refused itself (load shedding: 503 at once, never sent)
    // are its overflow too: the service kept serving its cap, which is the verdict.
    val (errs, why) = if chosen.exists(_.resource == Resource.MaxConnections) then
      (None, cap.copy(why = cap.why + failures.fold("")(e => s" (the waiting clients' $e)")))
    else if chosen.isDefined && shedMost then
      (None, cap.copy(why = cap.why + failures.fold("")(e => s"; above its cap the service refused the rest: $e")))
    else (errors, cap)
    val seen = r.info.cpus.fold(why)(n => why.copy(why = why.why + s" (the JVM told it has $n processors: its pools " +
      "sized from them are the ones a machine of that many cores would give it)"))
    val consistent = seen.copy(why = seen.why + chosen.flatMap(unlike).getOrElse("") + edges.getOrElse(""))
    val chain = chosen.fold(unbound.fold(Seq.empty[String])(_._2))(chainOf)
    Verdict(consistent, X, errs, fix, next, serviceMicros, chain)

  /**
   * Why the bound of a saturated resource is more than [[Noise]] above what was measured, when it is: the samples in
   * which it was not full (the load left it room), or holds the occupancy's view does not see.
   */
  private def unlike(m: Measured): Option[String] =
    val cap = capOf(m).perSecond
    Option.when(m.saturated && X < cap * (1 - Noise)) {
      val above = f"; the bound is ${(cap / X - 1) * 100}%.0f%% above the measurement: "
      if m.resource == Resource.Cpu then
        above + f"the cores were ${m.occupancy / m.size * 100}%.0f%% busy on the mean, and the bound counts them all " +
          "busy (a server that cannot keep every core busy, one worker process or a single loop, leaves the rest idle)"
      else
        above + f"${m.occupancy}%.1f of ${m.size}%.0f ${unitOf(m)} held on the mean, so ${fmt(m.hold)} s each by " +
          "Little's law, while the requests took longer around it (time outside the resource on its path: a queue " +
          "ahead of it, the connection's own work, or samples in which the load left it room)"
    }

  /**
   * Where the rate between the samples differs from the whole run's by more than [[Noise]]: which one the verdict
   * measured, and why the run's differs (its edges: the connections opening, the drain).
   */
  private def edges: Option[String] = sampled.filter(s => math.abs(s.expected / r.throughput.max(1e-9) - 1) > Noise)
    .map(s => f"; measured between the samples inside the load (${s.from}%.1f to ${s.to}%.1f s): ${X}%.1f req/s, where " +
      f"the whole run's ${r.throughput}%.1f req/s over its ${r.load.durationSeconds}%.0f s also count its edges (the " +
      "connections opening, the drain)")

  /**
   * How the load reaches `m`, from the threads that wait down to what its holders do: the pools whose threads queue
   * on a resource found from waits, then the resource itself.
   */
  private def chainOf(m: Measured): Seq[String] =
    if m.resource == Resource.Cpu then return cpuChain(m)
    val waiting = m.key.toSeq.flatMap(k => window.flatMap(_.pools).filter(_.waits.contains(k)).map(_.pool).distinct)
      .map { p =>
        val seen = window.map(_.pools.find(_.pool == p))
        f"$p: ${mean(seen.map(_.fold(0.0)(_.busy.toDouble)))}%.1f of ${seen.flatten.map(_.threads).maxOption
          .getOrElse(0)} threads busy, ${mean(seen.map(_.fold(0.0)(_.waits.getOrElse(m.key.get, 0).toDouble)))}%.1f " +
          "of them waiting on it"
      }
    waiting ++ m.chain :+ f"hold ${fmt(m.hold)} s -> cap ${m.cap}%.1f req/s"

  /** The CPU's chain: the resources whose holders compute, queued on because their holders wait for a core. */
  private def cpuChain(m: Measured): Seq[String] =
    val symptoms = cpuSymptoms.map(s => f"${s.resource.key} at ${s.subject}: ${s.queued.getOrElse(0.0)}%.1f threads " +
      "wait, its holders compute: their hold stretched by their turn on a busy core")
    if symptoms.isEmpty then Nil else symptoms :+ f"${m.size}%.0f cores busy -> cap ${m.cap}%.1f req/s"

  /** The failures as a fix when no setting explains them: their cause, from the answers and the service's log. */
  private def failuresFix: Fix =
    val top = r.log.sortBy(-_.count).headOption.map(l => s"the service's log says '${l.text.take(160)}' x ${l.count}")
    Fix(Nil, s"make the failing requests succeed first (${r.load.answers.describe}" + top.fold("")(t => s"; $t") +
      "): errors are never throughput, and a cap read under them is the cap of what failed fast", FixKind.Failures)

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
    // A wait with nothing in front of it is Little's law on the measurement itself: no cap of its own.
    val limits = candidates.filterNot(except).filterNot(m => m.resource == Resource.Wait ||
      (m.resource == Resource.ThirdParty && !m.saturated))
    (limits.map(capOf).filter(c => valid(c.perSecond)) ++ thirdParty.filter(_ => except.nonEmpty))
      .minByOption(_.perSecond)

  private def fixedSize(m: Measured): Int = ResourceReader.inFlight(m, view)

  private def fixFor(m: Measured): Option[Fix] = readerOf(m).flatMap(_.fix(m, view)).map(settled(_, m))

  /**
   * A fix with what to set and to what: the flag or key the lab applies it with (`--blocking-pool-size 16`, `--set
   * key=16`), else what its reader named; for a fix that sizes something, the size that holds every client.
   */
  private def settled(f: Fix, m: Measured): Fix =
    val applied = Fix.options(f.flags).headOption.collect {
      case Seq("--set", kv) => (kv.takeWhile(_ != '='), kv.dropWhile(_ != '=').drop(1).toDoubleOption)
      case Seq(flag, value) => (flag, value.toDoubleOption)
    }
    val sized = Set(FixKind.PoolSize, FixKind.ConnectionPoolSize, FixKind.LimitSize, FixKind.MaxConnections,
      FixKind.MoveOffEventLoop)
    f.copy(setting = f.setting.orElse(applied.map(_._1)),
      value = f.value.orElse(applied.flatMap(_._2)).orElse(Option.when(sized(f.kind))(fixedSize(m).toDouble)))

  /** The failed share and what the answers and the log say, when material: a verdict's errors, or a symptom's. */
  private val failures: Option[String] =
    val share = r.load.answers.failedShare(r.info.expectedClass)
    Option.when(share >= MaterialErrors) {
      val top = r.log.sortBy(-_.count).take(2).map(l => s"'${l.text.take(160)}' x ${l.count}")
      f"${share * 100}%.1f%% of the requests did not get ${r.info.expectedClass} " +
        s"(${r.load.answers.describe})" + (if top.isEmpty then "" else s"; the service's log: ${top.mkString(", ")}")
    }

  /**
   * Most failed requests were refused by the service itself (its SOAP admission: no slot within its wait, or the
   * breaker open), by its own counter of refused calls against the failed answers' rate.
   */
  private val shedMost: Boolean =
    val failedRate = (r.load.answers.answered + r.load.answers.unanswered - r.load.answers.expected(r.info.expectedClass))
      .toDouble / r.load.durationSeconds.max(1e-9)
    rateOverNodes(_.soapRefused).exists(refused => failedRate > 0 && refused >= failedRate * 0.8)

  /** The failures as the verdict names them, ahead of any cap. */
  private val errors: Option[String] = failures.map(f => s"errors first: $f")

  /** A fix the service's own log points at, when errors are the verdict. */
  private def errorsFix: Option[Fix] =
    if errors.isEmpty || !bulkhead then None
    else r.log.sortBy(-_.count).map(_.text).collectFirst {
      case t if t.contains("max-open-requests") =>
        Fix(Seq("--set", s"bulkhead.enrichment.soap.max-connections=$clients"),
          s"SOAP host pool >= $clients connections: the pool refused calls above its open-request limit",
          FixKind.ConnectionPoolSize)
    }

