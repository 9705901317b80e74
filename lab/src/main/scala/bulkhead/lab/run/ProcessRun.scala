package bulkhead.lab.run

import bulkhead.lab.diagnose.{Prediction, VerdictJson}
import bulkhead.lab.load.{LoadDriver, Requests}
import bulkhead.lab.model.{LoadFigures, MetricsReading}
import bulkhead.lab.process.Stack
import bulkhead.lab.record.{CapacityStep, RecordJson, RunInfo, RunRecord}
import bulkhead.lab.sample.{MeteredSampler, MetricsScrape, Sample}

import java.nio.file.{Files, Path}
import java.time.Instant
import scala.concurrent.duration.*

/**
 * Measures a JVM the lab did not start: under a load ([[loaded]]), under its own traffic ([[observed]]), or as a
 * series of samples alone ([[series]]), sampling it every `every`. A run is refused when no thread dump came (a JVM
 * of another user, one that is gone), recorded with the JVM's own JDK and cores, and written as `result.json` with its
 * `verdict.json` beside it (holding what `prediction`, an earlier verdict's, expected of it). The one way
 * `lab diagnose`, `lab capacity --pid` and `lab threads` measure a running JVM.
 *
 * Several JVMs (`opens`, the replicas of one service) are a fleet: under the user's requests ([[loadedFleet]]) each is
 * sampled in the same rounds and recorded as a node of the run, as a cluster's nodes are, so that a resource full on
 * every replica caps the fleet at the sum of theirs. Measured alone, the first one is.
 */
final class ProcessRun(opens: Seq[OpenJvm], every: FiniteDuration, say: String => Unit,
    prediction: Option[Prediction] = None):
  def this(open: OpenJvm, every: FiniteDuration, say: String => Unit, prediction: Option[Prediction]) =
    this(Seq(open), every, say, prediction)
  private val open = opens.head
  private val jvm = open.jvm
  private val sampler = open.sampler

  /** `driver` loads `url` while the JVM is sampled; the run named `name`, written into `dir`. */
  def loaded(driver: LoadDriver, url: String, dir: Path, name: String = jvm.key,
      step: Option[CapacityStep] = None): Either[String, RunRecord] =
    Files.createDirectories(dir)
    val started = Instant.now()
    Measurement.run(driver, url, dir, sampler, every, say).flatMap(sampled).map { m =>
      val f = m.figures
      val clients = if driver.openLoop then f.clients else driver.concurrency
      val record = Measurement.record(info(name, s"${jvm.label}: ${driver.describe(url)}", url, f, clients, started)
        .copy(capacityStep = step), driver, Seq(m), Nil, Nil, Nil)
      written(record, dir)
    }

  /**
   * `driver` sends the user's `requests` while every JVM of the run is sampled in the same rounds; the run, its nodes
   * the JVMs in the order given (the first is the one named in its lines), written into `dir`.
   */
  def loadedFleet(driver: LoadDriver, requests: Requests, dir: Path, name: String = jvm.key,
      step: Option[CapacityStep] = None): Either[String, RunRecord] =
    Files.createDirectories(dir)
    val started = Instant.now()
    val url = requests.targets.map(_.url.toString).distinct.mkString(" ")
    val labels = opens.map(_.jvm.label)
    val sampled = if opens.size == 1 then jvm.label else s"${opens.size} replicas (${labels.mkString(", ")})"
    Measurement.runNodes(driver, requests, dir, opens.map(_.sampler), every, say).flatMap { outcomes =>
      outcomes.zip(opens).map((m, o) => if m.death.isEmpty && m.samples.forall(_.pools.isEmpty) then Left(noDump(o))
        else Right(m))
        .collectFirst { case Left(e) => e }.toLeft(outcomes)
    }.map { outcomes =>
      val f = outcomes.head.figures
      val clients = if driver.openLoop then f.clients else driver.concurrency
      val base = info(name, s"$sampled: ${driver.describe(requests)}", url, f, clients, started)
      val record = Measurement.record((if opens.size == 1 then base else base.copy(target = sampled, nodes = labels))
        .copy(capacityStep = step), driver, outcomes, labels.drop(1), Nil, Nil)
      written(record, dir)
    }

  /**
   * Samples for `duration` under the service's own traffic, no load; the answers are the increase of `rateMetric`
   * (`URL#counter`, a Prometheus counter of answered requests) when one is given, else none are counted.
   */
  def observed(duration: FiniteDuration, rateMetric: Option[String], dir: Path,
      name: String = jvm.key): Either[String, RunRecord] =
    Files.createDirectories(dir)
    val started = Instant.now()
    def count(): Option[Double] = rateMetric.flatMap { spec =>
      val (url, counter) = spec.splitAt(spec.lastIndexOf('#'))
      Stack.get(url, 5.seconds).toOption.map(t => MetricsReading.lines(t).filter(_.name == counter.drop(1)).map(_.value).sum)
    }
    say(s"observing ${jvm.label} for ${duration.toSeconds} s (no load), a sample every ${every.toMillis} ms")
    val observed = Measurement.observe(sampler, every, duration, () => count(),
      s"observed ${duration.toSeconds} s" + rateMetric.fold("")(m => s", rate from $m"))
    sampled(observed).map { m =>
      val figures = m.figures
      val record = RunRecord(info(name, s"${jvm.label}: ${figures.description}", "", figures, 0, started), figures,
        m.samples, 0, figures.durationSeconds, Seq(figures.throughput()), Nil, Some(m.beforeLoad), Some(m.afterLoad),
        sampling = m.sampling, death = m.death)
      written(record, dir)
    }

  /** `count` samples, `every` apart at least (longer when their pauses ask it: [[PauseBudget]]); Left at the first without a thread dump. */
  def series(count: Int): Either[String, Seq[Sample]] =
    val start = System.nanoTime()
    val budget = PauseBudget(every)
    var failed = Option.empty[String]
    val samples = Vector.newBuilder[Sample]
    var n = 0
    while n < count && failed.isEmpty do
      val began = System.nanoTime()
      val s = sampler.sample((began - start) / 1e9)
      if s.pools.isEmpty then failed = Some(noDump)
      s.pause.foreach(p => budget.record(p.ms))
      samples += s
      n += 1
      val wait = (began + budget.interval.toNanos - System.nanoTime()) / 1_000_000
      if n < count && failed.isEmpty && wait > 0 then Thread.sleep(wait)
    val taken = sampler.finish(samples.result())
    failed.toLeft(taken)

  /** The first sample, before any load: which dump the JVM can take safely, said before the run starts. */
  def announce(): Unit = opens.foreach { o =>
    o.sampler.sample(0.0)
    say(s"sampling ${o.jvm.label} every ${every.toMillis} ms (longer when its pauses would pass " +
      s"${(PauseBudget.Share * 100).round} % of the time) from " + o.sampler.source.fold("a thread dump")(_.describe))
  }

  /** `record` as `result.json`, with its `verdict.json` unless the target died in it (nothing to judge after that). */
  private def written(record: RunRecord, dir: Path): RunRecord =
    RecordJson.write(record, dir)
    if record.death.isEmpty then VerdictJson.write(VerdictJson.of(record, prediction), dir)
    record

  private def noDump: String = noDump(open)

  private def noDump(open: OpenJvm): String =
    s"no thread dump of ${open.jvm.label}: " + open.sampler.lastDumpError.getOrElse(open.jvm match
      case RunningJvm.ByPid(_) => "is it a JVM of this user?"
      case RunningJvm.ByJmx(_, _) => "the agent gave none")

  /** A run without a thread dump is refused, unless the JVM died in it: that is the run's verdict. */
  private def sampled(m: Measurement.Outcome): Either[String, Measurement.Outcome] =
    if m.death.isEmpty && m.samples.forall(_.pools.isEmpty) then Left(noDump) else Right(m)

  private def info(name: String, title: String, url: String, figures: LoadFigures, clients: Int,
      started: Instant): RunInfo =
    RunInfo(name = name, title = title, target = jvm.label, url = url, loadDescription = figures.description,
      clients = clients, serviceFlags = Nil, stubLatency = None, redisCustomers = None, seed = None,
      declaredWorkSeconds = None, expectedClass = "2xx", expectedResource = None, source = jvm.label,
      jdk = open.facts.jdk, cores = open.facts.cores, startedAt = started.toString)

object ProcessRun:
  /**
   * Opens `jvm`, says how it will be sampled ([[ProcessRun.announce]]), runs `body` on it and closes it: Left when it
   * cannot be reached. `allowRiskyDumps`: `--allow-risky-dumps`.
   */
  def on[A](jvm: RunningJvm, every: FiniteDuration, say: String => Unit, allowRiskyDumps: Boolean = false,
      prediction: Option[Prediction] = None)(body: ProcessRun => Either[String, A]): Either[String, A] =
    onAll(Seq(jvm), Nil, every, say, allowRiskyDumps, prediction)(body)

  /**
   * Opens every JVM of a fleet (one, or each replica), each sampled with a scrape of its meters where `metrics` gives
   * one (in the same order), says how they will be sampled, runs `body` on them and closes them: Left when one cannot
   * be reached.
   */
  def onAll[A](jvms: Seq[RunningJvm], metrics: Seq[MetricsScrape], every: FiniteDuration, say: String => Unit,
      allowRiskyDumps: Boolean = false, prediction: Option[Prediction] = None)(
      body: ProcessRun => Either[String, A]): Either[String, A] =
    val opened = jvms.map(_.open(allowRiskyDumps))
    try
      opened.collectFirst { case Left(e) => e }.toLeft(opened.collect { case Right(o) => o }).flatMap { opens =>
        val metered = opens.zipAll(metrics.map(Some(_)), null, None).collect { case (o, m) if o != null =>
          m.fold(o)(scrape => o.copy(sampler = MeteredSampler(o.sampler, scrape)))
        }
        val run = ProcessRun(metered, every, say, prediction)
        run.announce()
        body(run)
      }
    finally opened.collect { case Right(o) => o }.foreach(_.close())
