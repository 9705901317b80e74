package bulkhead.lab.sample

/**
 * A sampler with the service's own meters added to each sample: a scrape of its Prometheus endpoint
 * ([[MetricsScrape]]) taken with the thread dump, whichever way the JVM is reached (by pid or over JMX).
 */
final class MeteredSampler(inner: ProcessSampler, scrape: MetricsScrape) extends ProcessSampler:
  def sample(second: Double): Sample =
    val s = inner.sample(second)
    s.copy(metrics = scrape.reading().orElse(s.metrics))
  def process(second: Double): Sample = inner.process(second)
  def lastDumpError: Option[String] = inner.lastDumpError
  override def source: Option[SamplingSource] = inner.source
  override def death(second: Double): Option[TargetDeath] = inner.death(second)
  override def finish(samples: Seq[Sample]): Seq[Sample] = inner.finish(samples)
