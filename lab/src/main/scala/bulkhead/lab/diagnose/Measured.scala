package bulkhead.lab.diagnose

import bulkhead.lab.model.Resource

/**
 * One resource as measured: its size, mean occupancy and rate through it, queue in front of it. On a cluster, a
 * resource of every node is one of `nodes` (size, occupancy, rate and queue summed over them). `frame`: where its
 * holders stand; `chain`: how the load reaches it, from the threads that wait down to what its holders do (the last
 * link names the root's own wait: a sleep, a computation, a socket read to an address); `waitsOn`: the key of
 * another resource its holders mostly queue on, which makes this one a symptom of that one; `ownRate`: its rate is
 * its own counter's (the service's meter of it), not the run's throughput, so it is set against what went through it;
 * `readBy`: the reader that read it, whose fix it takes (a future's reader names a pool, a limit or a connection pool
 * of its own finding); `holdersDo`: what a resource found from waits has its holders mostly do (`cpu`, `sleep`,
 * `socket`, another key).
 */
final case class Measured(resource: Resource, subject: String, size: Double, occupancy: Double, rate: Double,
    saturated: Boolean, queued: Option[Double], detail: String, nodes: Int = 1, frame: Option[String] = None,
    heldByGaugeOnly: Boolean = false, chain: Seq[String] = Nil, key: Option[String] = None,
    waitsOn: Option[String] = None, ownRate: Boolean = false, readBy: Option[ResourceReader] = None,
    holdersDo: Option[String] = None):
  def hold: Double = occupancy / rate
  def cap: Double = rate * size / occupancy
  def sizePerNode: Double = size / nodes

object Measured:
  private[diagnose] def mean(xs: Seq[Double]) = if xs.isEmpty then 0.0 else xs.sum / xs.size
  private[diagnose] def median(xs: Seq[Double]) = if xs.isEmpty then None else Some(xs.sorted.apply(xs.size / 2))
  private[diagnose] def mostly(xs: Seq[Boolean]) = xs.nonEmpty && xs.count(identity) * 2 >= xs.size
  private[diagnose] def fmt(d: Double): String =
    if d >= 10 then f"$d%.1f" else f"$d%.3f".reverse.dropWhile(_ == '0').reverse.stripSuffix(".")
