package bulkhead.lab.run

import bulkhead.lab.load.LoadDriver
import bulkhead.lab.model.{Answers, Latencies, LoadFigures, MetricsReading}
import bulkhead.lab.process.Stack
import bulkhead.lab.record.{CapacityStep, RecordJson, RunInfo, RunRecord}
import bulkhead.lab.sample.Sample

import java.nio.file.{Files, Path}
import java.time.Instant
import scala.concurrent.duration.*

/**
 * Measures a JVM the lab did not start: under a load ([[loaded]]), under its own traffic ([[observed]]), or as a
 * series of samples alone ([[series]]), sampling it every `every`. A run is refused when no thread dump came (a JVM
 * of another user, one that is gone), recorded with the JVM's own JDK and cores, and written as `result.json`. The
 * one way `lab diagnose`, `lab capacity --pid` and `lab threads` measure a running JVM.
 */
final class ProcessRun(open: OpenJvm, every: FiniteDuration, say: String => Unit):
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
      RecordJson.write(record, dir)
      record
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
    val c0 = count()
    val before = sampler.process(0.0)
    val start = System.nanoTime()
    val samples = paced(start, _ => System.nanoTime() - start < duration.toNanos)(sampler.sample)
    val elapsed = (System.nanoTime() - start) / 1e9
    val after = sampler.process(elapsed)
    val answered = (for a <- c0; b <- count() yield (b - a).toLong).getOrElse(0L)
    val figures = LoadFigures("observed", s"observed ${duration.toSeconds} s" + rateMetric.fold("")(m => s", rate from $m"),
      0, elapsed, Answers(Map("2xx" -> answered), 0, 0, 0, 0), Latencies.Empty, Nil)
    sampled(Measurement.Outcome(figures, samples, before, after)).map { m =>
      val record = RunRecord(info(name, s"${jvm.label}: ${figures.description}", "", figures, 0, started), figures,
        m.samples, 0, elapsed, Seq(figures.throughput()), Nil, Some(m.beforeLoad), Some(m.afterLoad))
      RecordJson.write(record, dir)
      record
    }

  /** `count` samples, `every` apart; Left at the first without a thread dump. */
  def series(count: Int): Either[String, Seq[Sample]] =
    val start = System.nanoTime()
    var failed = Option.empty[String]
    val samples = paced(start, i => i < count && failed.isEmpty) { second =>
      val s = sampler.sample(second)
      if s.pools.isEmpty then failed = Some(noDump)
      s
    }
    failed.toLeft(samples)

  /**
   * Samples taken while `more(samples so far)`, the n-th at `start + n x every` (a slow dump delays the next, never
   * shifts the ones after it).
   */
  private def paced(start: Long, more: Int => Boolean)(take: Double => Sample): Vector[Sample] =
    val taken = Vector.newBuilder[Sample]
    var n = 0
    while more(n) do
      taken += take((System.nanoTime() - start) / 1e9)
      n += 1
      val next = start + n * every.toNanos
      val wait = (next - System.nanoTime()) / 1_000_000
      if more(n) && wait > 0 then Thread.sleep(wait)
    taken.result()

  private def noDump: String =
    s"no thread dump of ${jvm.label}: " + sampler.lastDumpError.getOrElse(jvm match
      case RunningJvm.ByPid(_) => "is it a JVM of this user?"
      case RunningJvm.ByJmx(_, _) => "the agent gave none")

  private def sampled(m: Measurement.Outcome): Either[String, Measurement.Outcome] =
    if m.samples.forall(_.pools.isEmpty) then Left(noDump) else Right(m)

  private def info(name: String, title: String, url: String, figures: LoadFigures, clients: Int,
      started: Instant): RunInfo =
    RunInfo(name = name, title = title, target = jvm.label, url = url, loadDescription = figures.description,
      clients = clients, serviceFlags = Nil, stubLatency = None, redisCustomers = None, seed = None,
      declaredWorkSeconds = None, expectedClass = "2xx", expectedResource = None, source = jvm.label,
      jdk = open.facts.jdk, cores = open.facts.cores, startedAt = started.toString)

object ProcessRun:
  /** Opens `jvm`, runs `body` on it and closes it: Left when it cannot be reached. */
  def on[A](jvm: RunningJvm, every: FiniteDuration, say: String => Unit)(
      body: ProcessRun => Either[String, A]): Either[String, A] =
    jvm.open().flatMap(open => try body(ProcessRun(open, every, say)) finally open.close())
