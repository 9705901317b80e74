package bulkhead.lab.sample

/**
 * What the measuring loop asks of a served process, wherever the lab reaches it: a sample (its pools from a thread
 * dump, its CPU and threads), and the process alone (no dump: the cheap readings just before and after a load, which
 * bracket its CPU per request). [[ServiceSampler]] reads a JVM of this host by pid; [[JmxSampler]] one over JMX.
 */
trait ProcessSampler:
  def sample(second: Double): Sample
  def process(second: Double): Sample
  /** The last thread dump's error, if the last one failed. */
  def lastDumpError: Option[String]
  /** Where the thread samples come from and why; None before the first sample (or for a process that is no JVM). */
  def source: Option[SamplingSource] = None
  /** The process's end, seen at `second` of the run; None while it runs, or when this sampler cannot tell. */
  def death(second: Double): Option[TargetDeath] = None
  /**
   * Ends what the sampler keeps running in the process (a JFR recording) and completes `samples`, taken by this
   * sampler, with what it streamed meanwhile (virtual threads in their waits at each sample's instant).
   */
  def finish(samples: Seq[Sample]): Seq[Sample] = samples
