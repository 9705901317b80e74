package bulkhead.lab.run

import bulkhead.lab.diagnose.VerdictJson
import bulkhead.lab.load.{LoadDriver, WarmUp}
import bulkhead.lab.model.{MetricsReading, Target}
import bulkhead.lab.process.{ClusterNode, Dependencies, Launch, Served, ServiceCluster, Stack}
import bulkhead.lab.record.{CapacityStep, Drain, RecordJson, RunInfo, RunRecord, ServiceLog}
import bulkhead.lab.sample.{AsyncProfiler, CpuUsage, ServiceSampler}
import bulkhead.lab.scenario.{Load, Scenario}

import java.nio.file.{Files, Path}
import java.time.Instant
import scala.concurrent.duration.*

/**
 * Runs one scenario: starts what it needs (redis-server, the stub, the service, each its own process; N service nodes
 * joined as a cluster for `cluster.nodes`), warms up, drives the load while sampling the service (every node, on a
 * cluster), and stops every process it started. Each run's [[RunRecord]] is written
 * as `result.json` in the scenario's directory beside the raw outputs (wrk's report, JMeter's JTL, the logs).
 * With `profile`, async-profiler samples a JVM server's CPU through each measured run and writes its flame graph
 * there too ([[AsyncProfiler]]); the profiler's own samples are in that run's CPU figures.
 */
final class ScenarioRunner(launch: Launch, workDir: Path, progress: String => Unit, profile: Boolean = false):

  /** A scenario on its one target (bulkhead unless it names another), in the scenario's own directory. */
  def run(s: Scenario): Either[String, RunRecord] = runTarget(s, s.targets.head, workDir.resolve(s.name))

  /**
   * One target of a scenario, measured alone in `dir` (logs, raw outputs, result.json): bulkhead with the Redis and
   * stub the scenario asks for, or a peer (the zoo with the stub or PostgreSQL it asks for). What a benchmark runs
   * once per round.
   */
  def runTarget(s: Scenario, target: Target, dir: Path): Either[String, RunRecord] =
    s.load match
      case o: Load.Open if o.rate.isEmpty => Left(s"${s.name}: ${LoadDriver.NoRate}")
      case _ => session(s, target, dir)(_.measure(s, dir))

  /**
   * Starts what `s` needs on `target` (Redis, the stub, the service or a peer; N nodes for `cluster.nodes`), hands it
   * to `body` to measure as often as it likes (`lab capacity`: a closed loop, then each step), and stops every process
   * it started, also when `body` fails.
   */
  def session[A](s: Scenario, target: Target, dir: Path)(body: Session => A): Either[String, A] =
    val jdk = Runtime.version().feature()
    val runJdk = sys.env.get("BULKHEAD_JDK").flatMap(_.takeWhile(_.isDigit).toIntOption).getOrElse(jdk)
    if runJdk < s.minJdk then return Left(s"${s.name} needs JDK ${s.minJdk}+, the lab runs JDK $runJdk")
    Files.createDirectories(dir)
    val stack = Stack(launch, dir)
    var started = List.empty[Served]
    var backing: Option[Dependencies] = None
    try
      val deps = Dependencies.start(stack, dir, s.redisCustomers, s.stubLatency.map(latency =>
        Seq("--latency", latency.describe) ++ s.stubFaults.entries.flatMap(f => Seq("--fault", f))), s.postgres)
      backing = Some(deps)
      if s.clusterNodes > 1 then
        val nodes = ServiceCluster.start(stack, s.clusterNodes, s.serviceFlags ++ deps.serviceFlags, progress)
        started :::= nodes.map(_.served).toList
        Right(body(Session(nodes.head.served, target, deps.pids, nodes)))
      else
        val server = stack.server(target, s.serviceFlags ++ deps.serviceFlags, ScenarioRunner.heapOf(s),
          ScenarioRunner.jvmOf(s))
        started ::= server
        Right(body(Session(server, target, deps.pids, Nil)))
    catch case e: Exception => Left(s"${s.name}: ${e.getMessage}")
    finally
      started.foreach(_.child.stop())
      backing.foreach(_.stop())

  /** A scenario's processes, started: `measure` loads and samples them, once or step after step. */
  final class Session(val service: Served, target: Target, dependencies: Map[String, Long],
      cluster: Seq[ClusterNode]):
    private val jvm = cluster.nonEmpty || target.jvm

    /** The scenario's warm-up, its attempts, and the measured run of its own load, written to `dir`. */
    def measure(s: Scenario, dir: Path): RunRecord =
      val one = if cluster.isEmpty then s.copy(targets = Seq(target)) else s
      ScenarioRunner.this.measure(one, service, dir, jvm, dependencies = dependencies, cluster = cluster)

    /** The warm-up alone (JIT, not measured); how long it ran. */
    def warmUp(s: Scenario): FiniteDuration =
      progress(s"  warm-up ${s.warmup.toSeconds}s (JIT, in runs of ${WarmUp.RunLength.toSeconds} s), not measured")
      ScenarioRunner.this.warmUp(s, service, jvm, dependencies)

    /** One measured run of `driver` (no warm-up, no attempts), written to `dir` with its place on a curve. */
    def measureWith(s: Scenario, driver: LoadDriver, dir: Path, step: Option[CapacityStep]): RunRecord =
      record(s, service, dir, driver, jvm, Nil, dependencies, cluster, Duration.Zero, step)

  /** The scenario's own directory (logs, raw outputs, result.json) and the processes started in it. */
  private def stackFor(s: Scenario): (Path, Stack) =
    val dir = workDir.resolve(s.name)
    Files.createDirectories(dir)
    (dir, Stack(launch, dir))

  /**
   * Every target of the scenario, side by side: all started, then the attempts interleaved (A B C, A B C: seed 002 ran
   * each server three times in a row for the JIT, without one server's warm-up favouring it), the last round measured
   * and sampled per target. A scenario of one target runs as `run`, which starts the stub and Redis it asks for
   * (the zoo's httpclient-pool calls the stub).
   */
  def runAll(s: Scenario): Seq[Either[String, RunRecord]] =
    if s.targets.size == 1 then Seq(run(s))
    else
      val (dir, stack) = stackFor(s)
      var started = List.empty[Served]
      try
        val servers = s.targets.map { t =>
          progress(s"  starting $t")
          val served = stack.server(t, s.serviceFlags, ScenarioRunner.heapOf(s), ScenarioRunner.jvmOf(s))
          started ::= served
          t -> served
        }
        if s.warmup > Duration.Zero then
          progress(s"  warm-up ${s.warmup.toSeconds}s per target (JIT, in runs of ${WarmUp.RunLength.toSeconds} s), " +
            "not measured")
          servers.foreach((t, served) => warmUp(s, served, t.jvm))
        val earlier = (1 until s.attempts).flatMap { i =>
          servers.map { (t, served) =>
            progress(s"  attempt $i of ${s.attempts}: $t")
            t -> attempt(s, served, dir.resolve(s"${t.name}-attempt-$i"))
          }
        }.groupMap(_._1)(_._2)
        servers.map { (t, served) =>
          progress(s"  attempt ${s.attempts} of ${s.attempts} (sampled): $t")
          val one = s.copy(name = s"${s.name}@${t.name}", attempts = 1, warmup = Duration.Zero, targets = Seq(t))
          val r = measure(one, served, Files.createDirectories(dir.resolve(t.name)), jvm = t.jvm,
            earlier = earlier.getOrElse(t, Nil))
          Right(r)
        }
      catch case e: Exception => Seq(Left(s"${s.name}: ${e.getMessage}"))
      finally started.foreach(_.child.stop())

  /**
   * The scenario's warm-up of `served`, longer while the JIT of it and the JVMs it depends on (the stub) has not
   * settled; how long it ran. Its last requests (on 1 s SOAP calls, up to 2,000 of them) would otherwise be answered,
   * and cost CPU, inside the measured run: the measured run waits for them on a service with the gauges
   * ([[DrainWait]]); on one without, the warm-up is followed by a pause as long as its last run's longest answer, at
   * least [[ScenarioRunner.AfterLargerWarmUp]] after a warm-up at more connections than the load.
   */
  private def warmUp(s: Scenario, served: Served, jvm: Boolean,
      dependencies: Map[String, Long] = Map.empty): FiniteDuration =
    val pids = served.child.pid +: dependencies.values.toSeq
    val warmed = Measurement.sampledMeanwhile(samplerOf(s, served, jvm, dependencies), s.sampleEvery) {
      WarmUp.run(ScenarioRunner.warmUpThreads(s), s.warmupConnections.getOrElse(s.load.concurrency), s.warmup,
        served.url(s.path),
        jit = () => pids.flatMap(CpuUsage.compilerSeconds).reduceOption(_ + _),
        onExtra = share =>
          progress(f"  the JIT still took ${share * 100}%.0f %% of a core: ${WarmUp.RunLength.toSeconds} s more"),
        closeEach = s.load match
          case w: Load.Wrk => w.closeEach
          case _ => false)
    }
    afterLoad(s, served, "the warm-up's", warmed.lastLongest,
      if s.warmupConnections.exists(_ > s.load.concurrency) then ScenarioRunner.AfterLargerWarmUp else Duration.Zero)
    warmed.ran

  /**
   * On a target without the gauges, a pause for the requests the previous load left in it ([[DrainWait.withoutGauges]]);
   * on bulkhead the measured run polls its gauges instead ([[drain]]).
   */
  private def afterLoad(s: Scenario, served: Served, whose: String, longest: Option[FiniteDuration],
      atLeast: FiniteDuration = Duration.Zero): Unit =
    if metricsUrlOf(s, served).isEmpty then
      val pause = DrainWait.withoutGauges(longest, atLeast)
      if pause > Duration.Zero then
        progress(f"  waiting ${pause.toMillis / 1000.0}%.1f s for $whose last requests (its longest answer)")
        Thread.sleep(pause.toMillis)

  /** bulkhead's /metrics, when the scenario's targets are all bulkhead. */
  private def metricsUrlOf(s: Scenario, service: Served): Option[String] =
    Option.when(s.targets.forall(_ == Target.Bulkhead))(service.url("/metrics"))

  /** The sampler of `service`: its threads when it is a JVM, its /metrics when it is bulkhead. */
  private def samplerOf(s: Scenario, service: Served, jvm: Boolean, dependencies: Map[String, Long]): ServiceSampler =
    ServiceSampler(service.child.pid, metricsUrlOf(s, service), threadDumps = jvm, dependencies = dependencies,
      process = Some(service.child.process))

  /**
   * Waits until the work the previous load (a warm-up, an attempt, a capacity step) left in `service` has ended, at
   * most [[DrainWait.Cap]], so that its answers and 503s stay out of the next run; None for a target without the gauges.
   */
  private def drain(s: Scenario, service: Served): Option[Drain] =
    metricsUrlOf(s, service).flatMap { url =>
      val d = DrainWait.await(() => Stack.get(url, 2.seconds).toOption.map(MetricsReading.parse)
          .flatMap(DrainWait.inFlight),
        onWait = n => progress(f"  waiting for the service to go quiet: $n%.0f in flight (at most ${
          DrainWait.Cap.toSeconds} s)"))
      d.filter(_.inFlightAtStart > 0).foreach(w => progress(s"  ${DrainWait.sentence(w)}"))
      d
    }

  /** An unsampled attempt, on a quiet service: its throughput (expected answers per second). */
  private def attempt(s: Scenario, served: Served, dir: Path): Double =
    drain(s, served)
    val figures = LoadDriver.of(s.load).run(served.url(s.path), dir).fold(e => throw IllegalStateException(e), identity)
    afterLoad(s, served, "the attempt's", Option.when(figures.latency.count > 0)(figures.latency.maxMs.millis))
    figures.throughput(s.expectedClass)

  /** Loads `service` and samples it; on a cluster (`cluster`, the front first: `service`) samples every node. */
  private def measure(s: Scenario, service: Served, dir: Path, jvm: Boolean = true, earlier: Seq[Double] = Nil,
      dependencies: Map[String, Long] = Map.empty, cluster: Seq[ClusterNode] = Nil): RunRecord =
    val warmed =
      if s.warmup <= Duration.Zero then Duration.Zero
      else
        progress(s"  warm-up ${s.warmup.toSeconds}s (JIT, in runs of ${WarmUp.RunLength.toSeconds} s), not measured")
        warmUp(s, service, jvm, dependencies)
    // Earlier attempts (seed 002: three in a row, for the JIT) are measured and reported; the last one is analysed.
    val before = earlier ++ (1 until s.attempts).map { i =>
      progress(s"  attempt $i of ${s.attempts}")
      attempt(s, service, dir.resolve(s"attempt-$i"))
    }
    if s.attempts > 1 then progress(s"  attempt ${s.attempts} of ${s.attempts} (sampled)")
    record(s, service, dir, LoadDriver.of(s.load), jvm, before, dependencies, cluster, warmed, None)

  /**
   * Loads `service` with `driver`, once it is quiet, while sampling it (every node of `cluster`); the run written as
   * `result.json`.
   */
  private def record(s: Scenario, service: Served, dir: Path, driver: LoadDriver, jvm: Boolean, before: Seq[Double],
      dependencies: Map[String, Long], cluster: Seq[ClusterNode], warmed: FiniteDuration,
      step: Option[CapacityStep]): RunRecord =
    val url = service.url(s.path)
    val drained = drain(s, service)
    val sampler = samplerOf(s, service, jvm, dependencies)
    val others = cluster.drop(1)
    val started = Instant.now()
    val profiled = profile && jvm && cluster.isEmpty && AsyncProfiler.start(service.child.pid)
      .fold(e => { progress(s"  not profiled: $e"); false }, _ => true)
    val outcomes =
      try Measurement.runNodes(driver, url, dir,
          sampler +: others.map(n => ServiceSampler(n.served.child.pid, Some(n.url("/metrics")))), s.sampleEvery,
          progress).fold(e => throw IllegalStateException(e), identity)
      finally
        if profiled then AsyncProfiler.stop(service.child.pid, dir)
          .fold(e => progress(s"  profile not written: $e"), files => progress(s"  profile: ${files.mkString(", ")}"))
    val measured = outcomes.head
    // An open loop has no clients of its own: the most requests it had in flight stand for them.
    val clients = if driver.openLoop then measured.figures.clients else s.load.concurrency
    val info = ScenarioRunner.info(s, url, driver.describe(url), started).copy(nodes = cluster.map(_.address),
      warmupSeconds = warmed.toMillis / 1000.0, warmupConnections = s.warmupConnections, clients = clients,
      capacityStep = step, drain = drained)
    val record = Measurement.record(info, driver, outcomes, others.map(_.address), before,
      ServiceLog.readAll(service.child.log +: others.map(_.served.child.log)))
    RecordJson.write(record, dir)
    record.death.foreach(d => throw IllegalStateException(s"the service ${d.sentence}"))
    VerdictJson.write(VerdictJson.of(record), dir)
    record

object ScenarioRunner:
  /** What a scenario run records about itself. */
  def info(s: Scenario, url: String, load: String, started: Instant): RunInfo =
    RunInfo(s.name, s.title, s.targets.map(_.name).mkString(","), url, load, s.load.concurrency, s.serviceFlags,
      s.stubLatency.map(_.describe),
      s.redisCustomers, s.seed, Option.when(s.workSeconds > 0)(s.workSeconds), s.expectedClass, s.expectedResource,
      s.source.toString, RunInfo.servedJdk,
      Runtime.getRuntime.availableProcessors(), started.toString, s.warmup.toMillis / 1000.0, s.bound,
      Option.when(s.targets.contains(Target.Bulkhead))(heapOf(s)), expectedCap = s.expectedCap,
      expectedFix = s.expectedFix.map(_.key), cpus = s.cpus, compareWith = s.compareWith)

  /**
   * The pause after a warm-up at more connections than the load: long enough for the warm-up's last calls (a 1 s
   * third party, its answers and the pool's connections settling) to end before the measured run starts.
   */
  val AfterLargerWarmUp: FiniteDuration = 5.seconds

  /**
   * JVM options a scenario asks for: `-XX:ActiveProcessorCount` for `service.cpus` (`--cpus`), so that every pool
   * sized from the processors (Pekko's dispatchers, Netty's loops, the common pool) takes the size it would have on
   * a machine of that many cores, and the verdict's cap is the one it predicts there.
   */
  def jvmOf(s: Scenario): Seq[String] = s.cpus.toSeq.map(n => s"-XX:ActiveProcessorCount=$n")

  /** The service's `-Xmx`: the scenario's, else the lab's default. */
  def heapOf(s: Scenario): String = s.heap.fold(Stack.DefaultHeap)(h => s"-Xmx$h")

  /** wrk threads of the warm-up: the load's own (seed 001 drove 10,000 connections from 6), at most 2 for a ramp. */
  def warmUpThreads(s: Scenario): Int = s.load match
    case w: Load.Wrk => w.threads.min(w.connections)
    case r: Load.Ramp => 2.min(r.clients)
    case o: Load.Open => o.threads
