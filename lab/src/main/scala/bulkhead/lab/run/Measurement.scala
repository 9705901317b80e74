package bulkhead.lab.run

import bulkhead.lab.load.{LoadDriver, Requests}
import bulkhead.lab.model.{Answers, Latencies, LoadFigures}
import bulkhead.lab.record.{LoadWindow, LogLine, NodeSamples, RunInfo, RunRecord, SamplingRecord}
import bulkhead.lab.sample.{ProcessSampler, Sample, TargetDeath}

import java.nio.file.Path
import java.util.concurrent.Executors
import java.util.concurrent.atomic.AtomicReference
import scala.concurrent.duration.*
import scala.concurrent.{Await, ExecutionContext, Future}

/** Drives a load while the sampler samples the served process: the one measuring loop of every lab command. */
object Measurement:
  /**
   * What a measurement gives: the load's figures, the samples taken while it ran (from its start, every `every`
   * stretched for the pause budget ([[PauseBudget]]); with an `every` of zero, /proc readings alone), the processes
   * read from /proc just before the load started and just after it ended, which bracket the CPU the load cost them,
   * what the sampling did to the process, and its death when it ended during the run: then the load was stopped, the
   * figures are empty and the samples end before it.
   */
  final case class Outcome(figures: LoadFigures, samples: Seq[Sample], beforeLoad: Sample, afterLoad: Sample,
      sampling: Option[SamplingRecord] = None, death: Option[TargetDeath] = None)

  def run(driver: LoadDriver, url: String, dir: Path, sampler: ProcessSampler, every: FiniteDuration,
      progress: String => Unit): Either[String, Outcome] =
    runNodes(driver, url, dir, Seq(sampler), every, progress).map(_.head)

  /**
   * The same loop over several processes (the nodes of a cluster): each round samples every one at once, each on a
   * thread of its own (a thread dump of a busy JVM took seconds on a loaded machine: in turn, the last node's sample
   * came seconds after the first's), and each sample carries its own second. The progress line is the first
   * process's (the one loaded). One outcome per process, in the order of `samplers`, all with the load's figures.
   */
  def runNodes(driver: LoadDriver, url: String, dir: Path, samplers: Seq[ProcessSampler], every: FiniteDuration,
      progress: String => Unit): Either[String, Seq[Outcome]] =
    sampledWhile(driver, driver.describe(url), () => driver.run(url, dir), samplers, every, progress)

  /** The same loop with the user's requests (method, headers, body, several routes) in place of a GET of one URL. */
  def runNodes(driver: LoadDriver, requests: Requests, dir: Path, samplers: Seq[ProcessSampler], every: FiniteDuration,
      progress: String => Unit): Either[String, Seq[Outcome]] =
    sampledWhile(driver, driver.describe(requests), () => driver.run(requests, dir), samplers, every, progress)

  /** `drive` runs the load `driver` gives (`described` in a sentence) while `samplers` sample. */
  private def sampledWhile(driver: LoadDriver, described: String, drive: () => Either[String, LoadFigures],
      samplers: Seq[ProcessSampler], every: FiniteDuration, progress: String => Unit): Either[String, Seq[Outcome]] =
    require(samplers.nonEmpty, "no process to sample")
    val result = AtomicReference[Either[String, LoadFigures]]()
    val load = Thread(() => result.set(
      try drive() catch case e: Exception => Left(s"load driver failed: ${e.getMessage}")), "lab-load")
    val threads = Executors.newFixedThreadPool(samplers.size, task =>
      val t = Thread(task, "lab-sampler")
      t.setDaemon(true)
      t)
    given ExecutionContext = ExecutionContext.fromExecutor(threads)
    def everyOne[A](f: ProcessSampler => A): Seq[A] = Await.result(Future.sequence(samplers.map(s => Future(f(s)))),
      Duration.Inf)
    var watch = Option.empty[TargetWatch]
    try
      val before = everyOne(_.process(0.0))
      val start = System.nanoTime()
      def now = (System.nanoTime() - start) / 1e9
      load.start()
      // A process that dies ends the run: the load is stopped (its child killed), no figure after the death is kept.
      watch = Some(TargetWatch(samplers, () => now, d => {
        progress(s"  the target ${d.sentence}: stopping the load")
        load.interrupt()
      }))
      var samples = Vector.fill(samplers.size)(Vector.empty[Sample])
      // Sampling off (`every` of zero): /proc alone once a second, for the progress line; no thread dump, no scrape,
      // so that the sampler's own cost can be measured against it.
      val unsampled = every <= Duration.Zero
      val budget = PauseBudget(if unsampled then 1.second else every)
      var longest = Duration.Zero
      var next = start
      while load.isAlive && watch.flatMap(_.death).isEmpty do
        val round = everyOne(s => if unsampled then s.process(now) else s.sample(now))
        samples = samples.zip(round).map(_ :+ _)
        round.flatMap(_.pause).maxByOption(_.ms).foreach(p => budget.record(p.ms))
        val front = samples.head
        progress(status(front.last, front.dropRight(1).lastOption, driver.totalSeconds))
        val interval = if unsampled then budget.interval
          else budget.within(now, driver.measuredFrom, driver.totalSeconds,
            LoadWindow.between(front, driver.measuredFrom, driver.totalSeconds).size)
        longest = longest.max(interval)
        next += interval.toNanos
        load.join(((next - System.nanoTime()) / 1_000_000).max(100))
      watch.foreach(_.stop())
      val death = watch.flatMap(_.death)
      death.foreach { _ =>
        load.interrupt()
        load.join(Measurement.LoadStopWait.toMillis)
      }
      val wall = now
      val after = everyOne(_.process(wall))
      val finished = samplers.zip(samples).map((s, taken) => s.finish(death.fold(taken)(d =>
        taken.filter(_.second < d.second))))
      val figures = death match
        case Some(d) => Right(stopped(driver, described, d))
        case None => Option(result.get).getOrElse(Left("the load driver did not report"))
      figures.map(f => samplers.indices.map(i => Outcome(f, finished(i), before(i), after(i),
        Option.unless(unsampled)(SamplingRecord.of(samplers(i).source, every.toMillis, longest.toMillis, finished(i),
          wall, PauseBudget.Share)), death)))
    finally
      watch.foreach(_.stop())
      threads.shutdown()

  /** The figures of a load stopped by the death of its target: none, by design (nothing after it is the service's). */
  private def stopped(driver: LoadDriver, described: String, d: TargetDeath): LoadFigures =
    LoadFigures("stopped", s"$described; stopped: the target ${d.sentence}", driver.concurrency,
      d.second.max(1e-3), Answers.Empty, Latencies.Empty, Nil)

  /** How long a stopped load is waited for (wrk's child is killed at once; a JVM driver ends its users). */
  val LoadStopWait: FiniteDuration = 10.seconds

  /**
   * Samples `sampler` for `duration` under the process's own traffic (no load), every `every` stretched for the pause
   * budget, watching it as a loaded run does. `answered` reads a count of the answers it gave (a counter of its own
   * metrics), when there is one: their increase over the run is its throughput. `description` says what was observed.
   */
  def observe(sampler: ProcessSampler, every: FiniteDuration, duration: FiniteDuration,
      answered: () => Option[Double], description: String): Outcome =
    val c0 = answered()
    val before = sampler.process(0.0)
    val start = System.nanoTime()
    def now = (System.nanoTime() - start) / 1e9
    val budget = PauseBudget(every)
    var longest = Duration.Zero
    var samples = Vector.empty[Sample]
    var death = Option.empty[TargetDeath]
    while death.isEmpty && System.nanoTime() - start < duration.toNanos do
      val s = sampler.sample(now)
      samples :+= s
      s.pause.foreach(p => budget.record(p.ms))
      val interval = budget.interval
      longest = longest.max(interval)
      val end = (System.nanoTime() + interval.toNanos).min(start + duration.toNanos)
      while death.isEmpty && System.nanoTime() < end do
        Thread.sleep(TargetWatch.Every.toMillis.min(((end - System.nanoTime()) / 1_000_000).max(1)))
        death = sampler.death(now)
    val elapsed = now
    val after = sampler.process(elapsed)
    val taken = sampler.finish(death.fold(samples)(d => samples.filter(_.second < d.second)))
    val count = for a <- c0; b <- answered() if death.isEmpty yield (b - a).toLong
    val figures = LoadFigures("observed", death.fold(description)(d => s"$description; stopped: the target ${d.sentence}"),
      0, death.fold(elapsed)(_.second.max(1e-3)), Answers(Map("2xx" -> count.getOrElse(0L)), 0, 0, 0, 0),
      Latencies.Empty, Nil)
    Outcome(figures, taken, before, after,
      Some(SamplingRecord.of(sampler.source, every.toMillis, longest.toMillis, taken, elapsed, PauseBudget.Share)),
      death)

  /**
   * `body` with `sampler` sampling every `every` meanwhile, its samples discarded: a warm-up's. The sampler's first
   * dumps and scrapes run code of the service's (the JSON thread dumper, the metrics registry) and of the lab's that
   * nothing else runs; sampled through the warm-up, that code is compiled before the measured run, as the request path
   * is (a service the lab attaches to has long been through it too).
   */
  def sampledMeanwhile[A](sampler: ProcessSampler, every: FiniteDuration)(body: => A): A =
    if every <= Duration.Zero then body
    else
      val running = java.util.concurrent.atomic.AtomicBoolean(true)
      val budget = PauseBudget(every)
      val t = Thread(() =>
        while running.get do
          sampler.sample(0.0).pause.foreach(p => budget.record(p.ms))
          val end = System.nanoTime() + budget.interval.toNanos
          while running.get && System.nanoTime() < end do Thread.sleep(50)
      , "lab-warm-up-sampler")
      t.setDaemon(true)
      t.start()
      try body
      finally
        running.set(false)
        t.join(30_000)
        sampler.finish(Nil)

  /**
   * A measurement as a record: `outcomes` one per process as [[runNodes]] gives them (the front first), `others` the
   * cluster addresses of the nodes after the front, `attempts` the throughputs of the unsampled runs before this one.
   */
  def record(info: RunInfo, driver: LoadDriver, outcomes: Seq[Outcome], others: Seq[String], attempts: Seq[Double],
      log: Seq[LogLine]): RunRecord =
    val front = outcomes.head
    RunRecord(info, front.figures, front.samples, driver.measuredFrom, driver.totalSeconds,
      attempts :+ front.figures.throughput(info.expectedClass), log, Some(front.beforeLoad), Some(front.afterLoad),
      others.zip(outcomes.tail).map((n, o) => NodeSamples(n, o.samples, Some(o.beforeLoad), Some(o.afterLoad))),
      sampling = front.sampling, death = outcomes.flatMap(_.death).headOption)

  /** `12s/30s, 1,234 req/s answered, 41 platform threads, blocking-pool 8/8 busy`. */
  private def status(s: Sample, before: Option[Sample], total: Double): String =
    val rate = for
      b <- before
      m0 <- b.metrics
      m1 <- s.metrics
      if s.second > b.second
    yield (m1.answered - m0.answered) / (s.second - b.second)
    val busiest = s.metrics.toSeq.flatMap(_.pools).flatMap(g => for a <- g.active; m <- g.max if m > 0 yield (g.label, a, m))
      .maxByOption((_, a, m) => a / m).map((l, a, m) => f", $l ${a}%.0f/${m}%.0f busy").getOrElse("")
    f"  ${s.second}%.0fs/${total}%.0fs, ${rate.map(r => f"$r%,.0f").getOrElse("?")} req/s answered, " +
      s"${s.platformThreads.getOrElse("?")} platform threads$busiest"
