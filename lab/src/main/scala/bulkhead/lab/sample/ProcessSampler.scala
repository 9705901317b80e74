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
