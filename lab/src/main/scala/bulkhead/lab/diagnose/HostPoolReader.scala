package bulkhead.lab.diagnose

import bulkhead.lab.diagnose.Measured.*
import bulkhead.lab.model.{FixKind, Resource}

/**
 * bulkhead's SOAP host pool (the SOAP client's own connections to the third party): calls on connections (those in
 * flight, up to its size) over the calls the third party answered (a call refused before it was sent held no
 * connection; all calls when the service does not tell them apart). Read from the service's own gauges.
 */
object HostPoolReader extends ResourceReader:
  val resource: Resource = Resource.HostPool
  val unit = "connections"

  def read(run: RunView): Seq[Measured] =
    def gauge(f: bulkhead.lab.model.MetricsReading => Option[Double]) = ThreadPoolReader.gaugeIn(run.window)(f)
    def rate(f: bulkhead.lab.model.MetricsReading => Option[Double]) = ThreadPoolReader.rateIn(run.window)(f)
    (for
      size <- median(gauge(_.soapConnectionsMax))
      inFlight = gauge(_.soapInFlight)
      if inFlight.nonEmpty && size > 0
      through <- rate(_.soapAnswered).filter(_ > 0).orElse(rate(_.soapCalls).filter(_ > 0))
      occupancy = mean(inFlight.map(_.min(size)))
      if occupancy > 0
    yield Measured(Resource.HostPool, "", size, occupancy, through, mostly(inFlight.map(_ >= size * Diagnosis.FullShare)),
      Some(mean(inFlight.map(f => (f - size).max(0)))),
      f"${mean(inFlight)}%.1f calls in flight on ${size}%.0f connections, ${through}%.1f calls/s answered")).toSeq

  def fix(m: Measured, run: RunView): Option[Fix] =
    val n = ResourceReader.inFlight(m, run)
    val why = ResourceReader.because(m, run) + (if m.nodes == 1 then "" else s", $n on each of ${m.nodes} nodes")
    Option.when(run.bulkhead)(Fix(Seq("--set", s"bulkhead.enrichment.soap.max-connections=$n"),
      s"SOAP host pool of $n connections (bulkhead.enrichment.soap.max-connections; $why); the third party must " +
        s"serve $n calls at once", FixKind.ConnectionPoolSize))
