package bulkhead.lab.model

/**
 * Little's law: in-flight = throughput x latency. A closed loop of N clients with work of W seconds can do at most
 * N / W requests per second; a pool of T threads that each hold a request for W seconds, at most T / W.
 */
object LittlesLaw:
  def clients(n: Int, latencySeconds: Double): Bound = Bound(s"$n clients / ${fmt(latencySeconds)} s", n / latencySeconds)

  def pool(name: String, threads: Int, holdSeconds: Double): Bound =
    Bound(s"$name: $threads threads / ${fmt(holdSeconds)} s", threads / holdSeconds)

  /** The smallest of the caps: what bounds throughput. */
  def bound(caps: Seq[Bound]): Bound = caps.minBy(_.perSecond)

  private def fmt(d: Double) = if d == d.round then d.round.toString else f"$d%.2f"
