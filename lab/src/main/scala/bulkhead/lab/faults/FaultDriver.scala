package bulkhead.lab.faults

import bulkhead.lab.load.{ClosedLoopUsers, LoadDriver, RequestLog, UserGroup}
import bulkhead.lab.model.LoadFigures
import bulkhead.lab.record.FaultTimeline
import bulkhead.lab.sample.Retained

import java.net.URI
import java.nio.file.Path
import scala.concurrent.duration.*

/**
 * The phases of one fault run: load before the fault, the fault held, load after it cleared. A fault whose calls fail
 * only at the SOAP client's timeout is held `holdPastTimeout` instead, past that timeout.
 */
final case class Phases(baseline: FiniteDuration, hold: FiniteDuration, holdPastTimeout: FiniteDuration,
    recovery: FiniteDuration):
  def holdOf(fault: FaultCase): FiniteDuration = if fault.pastTimeout then holdPastTimeout else hold
  def total(fault: FaultCase): FiniteDuration = baseline + holdOf(fault) + recovery

/**
 * A fault run as a load: `users` steady closed-loop users on the URL's collection (`/customers` -> `/customers/{id}`,
 * ids 1..`customers`) throughout, the fault injected after the baseline through the run's [[FaultControls]] (made on
 * the run's request log by `controls`), held, cleared, and the users stopped after the recovery. Its figures are the
 * closed loop's, every user group's requests counted; [[timeline]] gives the rest of what it recorded.
 */
final class FaultDriver(fault: FaultCase, phases: Phases, users: Int, customers: Int,
    controls: (RequestLog, Int => String) => FaultControls, progress: String => Unit) extends LoadDriver:
  private final case class Ran(injectAt: Double, clearAt: Double, endAt: Double, log: Seq[RequestLog.Entry],
      usersEnded: Boolean)
  @volatile private var ran: Option[Ran] = None

  def concurrency: Int = users
  def measuredSeconds: Double = phases.total(fault).toMillis / 1000.0
  def describe(url: String): String =
    s"$users closed-loop keep-alive users on $url/{id}; ${fault.name} injected after " +
      s"${phases.baseline.toMillis / 1000.0} s, held ${phases.holdOf(fault).toMillis / 1000.0} s, then " +
      s"${phases.recovery.toMillis / 1000.0} s of recovery"

  def run(url: String, dir: Path): Either[String, LoadFigures] =
    LoadDriver.requireLoopback(url)
    val uri = URI.create(url)
    def path(n: Int) = s"${uri.getPath}/${n % customers + 1}"
    val log = RequestLog()
    val target = controls(log, path)
    def now = (System.nanoTime() - log.t0Nanos) / 1e9
    val hold = phases.holdOf(fault)
    val steady = ClosedLoopUsers.start(UserGroup("steady", users, uri.getPort, path), log)
    // Whatever happens, no user of this run outlives it (a failed injection must not leave load on the next run).
    try
      Thread.sleep(phases.baseline.toMillis)
      val injectAt = now
      fault.inject(target, hold)
      progress(f"  injected at $injectAt%.1f s: ${fault.description}")
      Thread.sleep(hold.toMillis)
      val clearAt = now
      fault.clear(target)
      progress(f"  cleared at $clearAt%.1f s")
      Thread.sleep(phases.recovery.toMillis)
      val ended = steady.stop() & target.stopAll()
      val endAt = now
      target.releaseAll()
      val entries = log.all
      ran = Some(Ran(injectAt, clearAt, endAt, entries, ended))
      Right(ClosedLoopUsers.figures(entries, users, 0.0, endAt, describe(url)))
    finally
      steady.abandon()
      target.stopAll()
      target.releaseAll()

  /**
   * What the run recorded besides its figures, once it ran: the phases, every request by group and outcome, and
   * what the service retained `before` the fault and `after` the run; `mode` the service's SOAP mode.
   */
  def timeline(mode: String, before: Retained, after: Retained): FaultTimeline =
    val r = ran.getOrElse(throw IllegalStateException(s"${fault.name} did not run"))
    FaultTimeline.of(fault.name, mode, fault.expect, r.injectAt, r.clearAt, r.endAt, r.log, before, after, r.usersEnded)
