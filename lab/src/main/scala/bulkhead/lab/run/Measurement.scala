package bulkhead.lab.run

import bulkhead.lab.load.{LoadDriver, Requests}
import bulkhead.lab.model.LoadFigures
import bulkhead.lab.record.{LogLine, NodeSamples, RunInfo, RunRecord}
import bulkhead.lab.sample.{ProcessSampler, Sample}

import java.nio.file.Path
import java.util.concurrent.Executors
import java.util.concurrent.atomic.AtomicReference
import scala.concurrent.duration.*
import scala.concurrent.{Await, ExecutionContext, Future}

/** Drives a load while the sampler samples the served process: the one measuring loop of every lab command. */
object Measurement:
  /**
   * What a measurement gives: the load's figures, the samples taken while it ran (from its start, every `every`; with
   * an `every` of zero, /proc readings alone), and
   * the processes read from /proc just before the load started and just after it ended, which bracket the CPU the
   * load cost them.
   */
  final case class Outcome(figures: LoadFigures, samples: Seq[Sample], beforeLoad: Sample, afterLoad: Sample)

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
    sampledWhile(driver, () => driver.run(url, dir), samplers, every, progress)

  /** The same loop with the user's requests (method, headers, body, several routes) in place of a GET of one URL. */
  def runNodes(driver: LoadDriver, requests: Requests, dir: Path, samplers: Seq[ProcessSampler], every: FiniteDuration,
      progress: String => Unit): Either[String, Seq[Outcome]] =
    sampledWhile(driver, () => driver.run(requests, dir), samplers, every, progress)

  private def sampledWhile(driver: LoadDriver, drive: () => Either[String, LoadFigures], samplers: Seq[ProcessSampler],
      every: FiniteDuration, progress: String => Unit): Either[String, Seq[Outcome]] =
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
    try
      val before = everyOne(_.process(0.0))
      val start = System.nanoTime()
      load.start()
      var samples = Vector.fill(samplers.size)(Vector.empty[Sample])
      var rounds = 0
      // Sampling off (`every` of zero): /proc alone once a second, for the progress line; no thread dump, no scrape,
      // so that the sampler's own cost can be measured against it.
      val unsampled = every <= Duration.Zero
      val period = if unsampled then 1.second else every
      while load.isAlive do
        samples = samples.zip(everyOne(s =>
          val second = (System.nanoTime() - start) / 1e9
          if unsampled then s.process(second) else s.sample(second))).map(_ :+ _)
        rounds += 1
        val front = samples.head
        progress(status(front.last, front.dropRight(1).lastOption, driver.totalSeconds))
        val next = start + rounds * period.toNanos
        load.join(((next - System.nanoTime()) / 1_000_000).max(100))
      val after = everyOne(_.process((System.nanoTime() - start) / 1e9))
      Option(result.get).getOrElse(Left("the load driver did not report")).map(figures =>
        samples.indices.map(i => Outcome(figures, samples(i), before(i), after(i))))
    finally threads.shutdown()

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
      val t = Thread(() =>
        while running.get do
          sampler.sample(0.0)
          val end = System.nanoTime() + every.toNanos
          while running.get && System.nanoTime() < end do Thread.sleep(50)
      , "lab-warm-up-sampler")
      t.setDaemon(true)
      t.start()
      try body
      finally
        running.set(false)
        t.join(30_000)

  /**
   * A measurement as a record: `outcomes` one per process as [[runNodes]] gives them (the front first), `others` the
   * cluster addresses of the nodes after the front, `attempts` the throughputs of the unsampled runs before this one.
   */
  def record(info: RunInfo, driver: LoadDriver, outcomes: Seq[Outcome], others: Seq[String], attempts: Seq[Double],
      log: Seq[LogLine]): RunRecord =
    val front = outcomes.head
    RunRecord(info, front.figures, front.samples, driver.measuredFrom, driver.totalSeconds,
      attempts :+ front.figures.throughput(info.expectedClass), log, Some(front.beforeLoad), Some(front.afterLoad),
      others.zip(outcomes.tail).map((n, o) => NodeSamples(n, o.samples, Some(o.beforeLoad), Some(o.afterLoad))))

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
