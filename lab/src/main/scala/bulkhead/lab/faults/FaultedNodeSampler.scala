package bulkhead.lab.faults

import bulkhead.lab.sample.{ProcessSampler, Sample}

/**
 * Samples the faulted node of a cluster across its fault: its first process, then each new one it is told of; its
 * samples read nothing while it is down (its process is gone) and its new process's once it is back. While it is
 * paused (SIGSTOP) it is read from /proc alone: a thread dump or a scrape would wait on it, and every node's sample
 * of that round with it.
 */
final class FaultedNodeSampler(first: ProcessSampler) extends ProcessSampler:
  @volatile private var current = first
  @volatile private var paused = false
  def follow(next: ProcessSampler): Unit = current = next
  def pause(on: Boolean): Unit = paused = on
  def sample(second: Double): Sample = if paused then current.process(second) else current.sample(second)
  def process(second: Double): Sample = current.process(second)
  def lastDumpError: Option[String] = current.lastDumpError
