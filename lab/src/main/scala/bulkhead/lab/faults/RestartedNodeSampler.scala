package bulkhead.lab.faults

import bulkhead.lab.sample.{ProcessSampler, Sample}

/**
 * Samples a node across a restart: its first process, then each new one it is told of. The killed node's samples
 * read nothing while it is down (its process is gone) and its new process's once it is back.
 */
final class RestartedNodeSampler(first: ProcessSampler) extends ProcessSampler:
  @volatile private var current = first
  def follow(next: ProcessSampler): Unit = current = next
  def sample(second: Double): Sample = current.sample(second)
  def process(second: Double): Sample = current.process(second)
  def lastDumpError: Option[String] = current.lastDumpError
