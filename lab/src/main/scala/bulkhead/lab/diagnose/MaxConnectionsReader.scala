package bulkhead.lab.diagnose

import bulkhead.lab.diagnose.Measured.*
import bulkhead.lab.model.{FixKind, Resource}

/**
 * The server's connection limit (`max-connections`): connections served (those open, up to the limit: a connection
 * above it is answered 503 and closed, it holds no slot) over the expected answers.
 */
object MaxConnectionsReader extends ResourceReader:
  val resource: Resource = Resource.MaxConnections
  val unit = "connections"

  def read(run: RunView): Seq[Measured] =
    def gauge(f: bulkhead.lab.model.MetricsReading => Option[Double]) = ThreadPoolReader.gaugeIn(run.window)(f)
    (for
      size <- median(gauge(_.connectionsMax))
      open = gauge(_.connectionsOpen)
      if open.nonEmpty && size > 0
      occupancy = mean(open.map(_.min(size)))
      if occupancy > 0
    yield Measured(Resource.MaxConnections, "", size, occupancy, run.throughput.max(1e-9),
      run.clients > size && mostly(open.map(_ >= size * 0.98)), Some((run.clients - occupancy).max(0)),
      f"${occupancy}%.0f of ${size}%.0f connections served for ${run.clients} clients (${mean(open)}%.0f open)")).toSeq

  def fix(m: Measured, run: RunView): Option[Fix] =
    val n = ResourceReader.inFlight(m, run)
    if run.bulkhead then
      Some(Fix(Seq("--max-connections", n.toString), s"max-connections >= $n (one per client)", FixKind.MaxConnections))
    else Some(Fix(Nil, s"the server's connection limit >= $n (one per client)", FixKind.MaxConnections))
