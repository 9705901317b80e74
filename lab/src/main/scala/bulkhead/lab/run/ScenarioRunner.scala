package bulkhead.lab.run

import bulkhead.lab.SeedRedis
import bulkhead.lab.diagnose.{Diagnosis, Observation}
import bulkhead.lab.load.{RampDriver, WarmUp, Wrk, WrkLoad}
import bulkhead.lab.process.{Launch, Served, Stack, Target}
import bulkhead.lab.sample.{CpuUsage, MetricsScrape, ProcessThreads, ThreadSampler}
import bulkhead.lab.scenario.{Load, Scenario}

import java.nio.file.{Files, Path}
import java.util.concurrent.atomic.AtomicReference
import scala.concurrent.duration.*

/**
 * Runs one scenario: starts what it needs (redis-server, the stub, the service, each its own process), warms up,
 * drives the load while sampling threads and /metrics, diagnoses, and stops every process it started.
 */
final class ScenarioRunner(launch: Launch, workDir: Path, progress: String => Unit):

  def run(s: Scenario): Either[String, ScenarioResult] =
    val jdk = Runtime.version().feature()
    val runJdk = sys.env.get("BULKHEAD_JDK").flatMap(_.takeWhile(_.isDigit).toIntOption).getOrElse(jdk)
    if runJdk < s.minJdk then return Left(s"${s.name} needs JDK ${s.minJdk}+, the lab runs JDK $runJdk")
    val (dir, stack) = stackFor(s)
    var started = List.empty[Served]
    try
      val redis = s.redisCustomers.map { n =>
        val r = stack.redis()
        started ::= r
        SeedRedis.load(s"redis://127.0.0.1:${r.port}", n)
        r
      }
      val stub = s.stubLatency.map { latency =>
        val st = stack.stub(Seq("--latency", latency) ++ s.stubFaults.flatMap(f => Seq("--fault", f)))
        started ::= st
        st
      }
      val backing = redis.toSeq.flatMap(r => Seq("--redis-uri", s"redis://127.0.0.1:${r.port}")) ++
        stub.toSeq.flatMap(st => Seq("--soap-endpoint", st.url("/soap")))
      val service = stack.service(s.serviceFlags ++ backing)
      started ::= service
      Right(measure(s, service, dir))
    catch case e: Exception => Left(s"${s.name}: ${e.getMessage}")
    finally started.foreach(_.child.stop())

  /** The scenario's own directory (logs, wrk output) and the processes started in it. */
  private def stackFor(s: Scenario): (Path, Stack) =
    val dir = workDir.resolve(s.name)
    Files.createDirectories(dir)
    (dir, Stack(launch, dir))

  /**
   * Every target of the scenario, side by side: all started, then the attempts interleaved (A B C, A B C: seed 002's
   * three attempts per server for the JIT, without one server's warm-up favouring it), the last round measured and
   * sampled per target. A scenario of bulkhead alone runs as `run`.
   */
  def runAll(s: Scenario): Seq[Either[String, ScenarioResult]] =
    if s.targets == Seq(Target.Bulkhead) then Seq(run(s))
    else
      val (dir, stack) = stackFor(s)
      var started = List.empty[Served]
      try
        val servers = s.targets.map { t =>
          progress(s"  starting $t")
          val served = if t == Target.Bulkhead then stack.service(s.serviceFlags) else stack.peer(t, s.serviceFlags)
          started ::= served
          t -> served
        }
        if s.warmup > Duration.Zero then
          progress(s"  warm-up ${s.warmup.toSeconds}s per target (JIT, in runs of ${WarmUp.RunLength.toSeconds} s), " +
            "not measured")
          servers.foreach((_, served) => WarmUp.run(2.min(s.load.concurrency), s.load.concurrency, s.warmup,
            served.url(s.path)))
        val earlier = (1 until s.attempts).flatMap { i =>
          servers.map { (t, served) =>
            progress(s"  attempt $i of ${s.attempts}: $t")
            t -> drive(s, served.url(s.path), dir).fold(e => throw IllegalStateException(e), _.requestsPerSecond)
          }
        }.groupMap(_._1)(_._2)
        servers.map { (t, served) =>
          progress(s"  attempt ${s.attempts} of ${s.attempts} (sampled): $t")
          val one = s.copy(name = s"${s.name}@$t", attempts = 1, warmup = Duration.Zero, targets = Seq(t))
          val r = measure(one, served, Files.createDirectories(dir.resolve(t)), jvm = t != Target.Nginx)
          Right(r.copy(attempts = earlier.getOrElse(t, Nil) :+ r.figures.requestsPerSecond))
        }
      catch case e: Exception => Seq(Left(s"${s.name}: ${e.getMessage}"))
      finally started.foreach(_.child.stop())

  private def measure(s: Scenario, service: Served, dir: Path, jvm: Boolean = true): ScenarioResult =
    val idle = Stack.get(service.url("/metrics")).map(MetricsScrape.parse).getOrElse(MetricsScrape(Map.empty))
    val poolSizes = ScenarioRunner.poolSizes(idle)
    val url = service.url(s.path)
    if s.warmup > Duration.Zero then
      progress(s"  warm-up ${s.warmup.toSeconds}s (JIT, in runs of ${WarmUp.RunLength.toSeconds} s), not measured")
      WarmUp.run(2.min(s.load.concurrency), s.load.concurrency, s.warmup, url)
    // Earlier attempts (seed 002: three in a row, for the JIT) are measured and reported; the last one is analysed.
    val earlier = (1 until s.attempts).map { i =>
      progress(s"  attempt $i of ${s.attempts}")
      drive(s, url, dir).fold(e => throw IllegalStateException(e), _.requestsPerSecond)
    }
    if s.attempts > 1 then progress(s"  attempt ${s.attempts} of ${s.attempts} (sampled)")
    val cpuBefore = CpuUsage.treeSeconds(service.child.pid)
    val machineBefore = CpuUsage.machineBusy()
    val loadResult = AtomicReference[Either[String, LoadFigures]]()
    val start = System.nanoTime()
    val driver = Thread(() => loadResult.set(drive(s, url, dir)), "lab-load")
    driver.start()
    val total = s.load match
      case w: Load.Wrk => w.duration
      case r: Load.Ramp => r.rampUp + r.hold
    var timeline = Vector.empty[TimePoint]
    var lastCount: Option[(Double, Double)] = None
    while driver.isAlive do
      val t = (System.nanoTime() - start) / 1e9
      // A starved service (blocking on its default dispatcher) may not answer: do not wait long for it.
      val scrape = Stack.get(service.url("/metrics"), 2.seconds).toOption.map(MetricsScrape.parse)
      val count = scrape.map(ScenarioRunner.requestCount)
      val rate = for (c, now) <- count.map(_ -> t); (c0, t0) <- lastCount if now > t0 yield (c - c0) / (now - t0)
      count.foreach(c => lastCount = Some(c -> t))
      val pools = if jvm then ThreadSampler.sample(service.child.pid).getOrElse(Nil) else Nil
      val proc = ProcessThreads.read(service.child.pid)
      timeline :+= TimePoint(t, rate, proc.map(_.threads), proc.map(_.residentMb),
        scrape.flatMap(_.get("http_server_connections_open")), pools)
      val busiest = pools.flatMap(p => poolSizes.collectFirst { case (label, size) if p.pool.endsWith(label) =>
        (label, p.busy, size) }).sortBy((_, busy, size) => -busy.toDouble / size).headOption
        .map((label, busy, size) => s", $label $busy/$size busy").getOrElse("")
      progress(f"  ${t}%.0fs/${total.toSeconds}s, live ${rate.map(r => f"$r%.0f").getOrElse("?")} req/s, " +
        s"${proc.map(_.threads).getOrElse("?")} platform threads$busiest")
      val wait = s.sampleEvery.toMillis - ((System.nanoTime() - start) / 1000000 - (t * 1000).toLong)
      driver.join(wait.max(100))
    val elapsed = (System.nanoTime() - start) / 1e9
    val serviceCores = (for a <- cpuBefore; b <- CpuUsage.treeSeconds(service.child.pid) yield (b - a) / elapsed)
      .getOrElse(Double.NaN)
    val machineBusy = (for (b0, t0) <- machineBefore; (b1, t1) <- CpuUsage.machineBusy() if t1 > t0
      yield (b1 - b0).toDouble / (t1 - t0)).getOrElse(Double.NaN)
    val figures = loadResult.get match
      case null => throw IllegalStateException("the load driver did not report")
      case Left(err) => throw IllegalStateException(err)
      case Right(f) => f
    val measuredSamples = timeline.filter(p => s.load match
      case r: Load.Ramp => p.second >= r.rampUp.toSeconds
      case _ => true).map(_.pools)
    // A peer has no /metrics: the sizes of its dispatchers are the threads its samples showed.
    val sizes = if poolSizes.nonEmpty then poolSizes else ScenarioRunner.poolSizesFromSamples(timeline.map(_.pools))
    val observation = Observation(
      requestsPerSecond = figures.requestsPerSecond,
      meanLatencySeconds = figures.meanMs / 1000.0,
      clients = s.load.concurrency,
      workSeconds = s.workSeconds,
      samples = if measuredSamples.nonEmpty then measuredSamples else timeline.map(_.pools),
      poolSizes = sizes,
      serviceCores = serviceCores,
      machineBusy = machineBusy,
      cores = Runtime.getRuntime.availableProcessors(),
      openConnections = timeline.flatMap(_.openConnections).maxOption,
      maxConnections = idle.get("http_server_connections_max").map(_.toInt),
      connectErrors = figures.connectErrors,
      thirdPartySeconds = s.stubLatency.flatMap(ScenarioRunner.meanLatencySeconds))
    ScenarioResult(s, figures, timeline, Diagnosis(observation), sizes, serviceCores, machineBusy,
      sys.env.getOrElse("BULKHEAD_JDK", Runtime.version().toString), earlier :+ figures.requestsPerSecond,
      service.child.log.toString)

  private def drive(s: Scenario, url: String, dir: Path): Either[String, LoadFigures] =
    try
      s.load match
        case w: Load.Wrk =>
          Wrk.run(WrkLoad(w.threads.min(w.connections), w.connections, w.duration, w.timeout, url)).map { (r, raw) =>
            Files.writeString(dir.resolve("wrk.txt"), raw)
            LoadFigures(r.requestsPerSecond, r.latencyAvgMs, r.p50.getOrElse(Double.NaN), r.p99.getOrElse(Double.NaN),
              r.latencyMaxMs, r.requests, r.errors.total, r.errors.connect, r.non2xx, raw)
          }
        case r: Load.Ramp =>
          val res = RampDriver.run(r, url, dir)
          Right(LoadFigures(res.requestsPerSecond, res.meanMs, res.p50Ms, res.p99Ms, res.maxMs, res.requests,
            res.errors, 0, res.errors, res.series.map(x =>
              f"${x.second}%4d s: ${x.requests}%5d req, ${x.errors} err, mean ${x.meanMs}%.0f ms, clients ${x.clients}")
              .mkString("\n")))
    catch case e: Exception => Left(s"load driver failed: ${e.getMessage}")

object ScenarioRunner:
  /** Requests answered so far, summed over routes (plus the /hello fast path). */
  def requestCount(m: MetricsScrape): Double =
    m.values.collect { case (k, v) if k.startsWith("http_server_requests_seconds_count{") => v }.sum +
      m.get("http_server_hello_fast_total").getOrElse(0.0)

  /**
   * Sizes of the pools that can cap throughput, by the service's pool label (a thread-name prefix ends with it):
   * from its gauges, max threads or fork-join parallelism, read before the load.
   */
  def poolSizes(metrics: MetricsScrape): Map[String, Int] =
    metrics.pools("executor_pool_max_threads").collect { case (label, size) if !size.isNaN => label -> size.toInt }

  /**
   * Pool sizes of a server without bulkhead's gauges (the Akka HTTP and Spray peers): the most threads each of its
   * dispatchers showed in the samples. Fixed pools (seed 001's) show their size once busy; a fork-join default
   * dispatcher shows its parallelism under load.
   */
  def poolSizesFromSamples(samples: Seq[Seq[bulkhead.lab.sample.PoolSample]]): Map[String, Int] =
    samples.flatten.filter(_.pool.contains("dispatcher")).groupMapReduce(_.pool)(_.threads)(_ max _)

  /** The mean of a stub latency profile ("fixed:1000", "uniform:500:1500", "normal:1000:100"), in seconds. */
  def meanLatencySeconds(profile: String): Option[Double] = profile.split(':').toList match
    case "fixed" :: ms :: Nil => ms.toDoubleOption.map(_ / 1000)
    case "uniform" :: lo :: hi :: Nil => for a <- lo.toDoubleOption; b <- hi.toDoubleOption yield (a + b) / 2000
    case "normal" :: mean :: _ :: Nil => mean.toDoubleOption.map(_ / 1000)
    case _ => None

