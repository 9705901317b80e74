package bulkhead.lab.run

import bulkhead.lab.load.{LoadDriver, LoadFigures}
import bulkhead.lab.sample.{Sample, ServiceSampler}

import java.nio.file.Path
import java.util.concurrent.atomic.AtomicReference
import scala.concurrent.duration.*

/** Drives a load while the sampler samples the served process: the one measuring loop of every lab command. */
object Measurement:
  /**
   * What a measurement gives: the load's figures, the samples taken while it ran (from its start, every `every`), and
   * the processes read from /proc just before the load started and just after it ended, which bracket the CPU the
   * load cost them.
   */
  final case class Outcome(figures: LoadFigures, samples: Seq[Sample], beforeLoad: Sample, afterLoad: Sample)

  def run(driver: LoadDriver, url: String, dir: Path, sampler: ServiceSampler, every: FiniteDuration,
      progress: String => Unit): Either[String, Outcome] =
    val result = AtomicReference[Either[String, LoadFigures]]()
    val load = Thread(() => result.set(
      try driver.run(url, dir) catch case e: Exception => Left(s"load driver failed: ${e.getMessage}")), "lab-load")
    val before = sampler.process(0.0)
    val start = System.nanoTime()
    load.start()
    var samples = Vector.empty[Sample]
    while load.isAlive do
      val t = (System.nanoTime() - start) / 1e9
      val s = sampler.sample(t)
      samples :+= s
      progress(status(s, samples.dropRight(1).lastOption, driver.totalSeconds))
      val next = start + ((samples.size * every.toNanos))
      load.join(((next - System.nanoTime()) / 1_000_000).max(100))
    val after = sampler.process((System.nanoTime() - start) / 1e9)
    Option(result.get).getOrElse(Left("the load driver did not report")).map(Outcome(_, samples, before, after))

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
