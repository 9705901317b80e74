package bulkhead.lab.run

import bulkhead.lab.model.MetricsReading
import bulkhead.lab.record.Drain

import scala.concurrent.duration.*

/**
 * The rule for starting a measured run on a quiet service: poll its work in flight until none is left, at most
 * [[Cap]]. A target without the gauges (another framework's server, a process the lab attached to) is waited for as
 * long as the previous load's longest answer ([[withoutGauges]]).
 */
object DrainWait:
  /**
   * The longest wait. With the service's defaults a call ends at most soap.admission.max-wait (1 s) plus
   * soap.request-timeout (3 s) after it arrived, and a request at its pipeline's ask timeout a little later; 10 s
   * covers that with room for a scenario that raises them, and bounds the cost of a gauge that never returns to 0.
   */
  val Cap: FiniteDuration = 10.seconds

  /** Between two readings: short against a 1 s call, a scrape of /metrics costs the service little. */
  val Poll: FiniteDuration = 200.millis

  /**
   * The work in flight in a scrape: the /customers requests in the pipeline or the SOAP calls in flight and waiting
   * for a slot, whichever is larger (each call belongs to a request, so they are not added), plus /work requests;
   * None when the scrape has none of these gauges.
   */
  def inFlight(m: MetricsReading): Option[Double] =
    val soap = Option.when(m.soapInFlight.isDefined || m.soapWaiting.isDefined)(
      m.soapInFlight.getOrElse(0.0) + m.soapWaiting.getOrElse(0.0))
    val pipeline = Seq(soap, m.enrichmentInFlight).flatten.maxOption
    Option.when(pipeline.isDefined || m.workInFlight.isDefined)(pipeline.getOrElse(0.0) + m.workInFlight.getOrElse(0.0))

  /**
   * Waits until `read` (the work in flight now; None: no reading) says none is left, or `cap` has passed; what it
   * waited for. None, at once, when the first reading has no gauges: nothing to wait for. A reading that fails later
   * (a slow scrape) keeps the last one. `onWait(n)` is told once, before waiting on `n` in flight.
   */
  def await(read: () => Option[Double], cap: FiniteDuration = Cap, poll: FiniteDuration = Poll,
      clock: () => Long = () => System.nanoTime(), sleep: FiniteDuration => Unit = d => Thread.sleep(d.toMillis),
      onWait: Double => Unit = _ => ()): Option[Drain] =
    read().map { first =>
      val started = clock()
      def waited = (clock() - started).nanos
      var left = first
      if left > 0 then onWait(left)
      while left > 0 && waited < cap do
        sleep(poll.min(cap - waited))
        left = read().getOrElse(left)
      Drain(first, left, waited.toMillis / 1000.0, quiet = left <= 0)
    }

  /**
   * The pause after a load on a target without the gauges: that load's longest answer, at least `atLeast`, at most
   * [[Cap]]. A closed loop stops with a request of each client still in the service (wrk exits without waiting for
   * them, and a server rarely notices before it answers); they wait behind no more work than the answers it timed, so
   * they end within about its longest one. Unwaited, they are worked off inside the next run, which then counts fewer
   * answers: a client's pool of 5 connections on 200 ms calls spent about the first 1.2 s of its 15 s measured run on
   * the warm-up's 30 requests (30 at 25 a second) and measured 22.4 req/s, 24.3 once it waited for them.
   */
  def withoutGauges(longest: Option[FiniteDuration], atLeast: FiniteDuration = Duration.Zero): FiniteDuration =
    longest.getOrElse(Duration.Zero).max(atLeast).min(Cap)

  /** The wait in a progress line. */
  def sentence(d: Drain): String =
    if d.inFlightAtStart <= 0 then "quiet"
    else if d.quiet then f"quiet after ${d.waitedSeconds}%.1f s (${d.inFlightAtStart}%.0f in flight at first)"
    else f"still ${d.leftInFlight}%.0f in flight after ${d.waitedSeconds}%.1f s (of ${d.inFlightAtStart}%.0f): measured anyway"
