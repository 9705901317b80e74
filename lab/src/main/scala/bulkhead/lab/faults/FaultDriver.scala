package bulkhead.lab.faults

import bulkhead.lab.checks.Recovery
import bulkhead.lab.load.{ClosedLoopUsers, LoadDriver, UserGroup}
import bulkhead.lab.model.LoadFigures
import bulkhead.lab.record.{FaultExpectation, FaultTimeline, HostileClients, RequestLog, ServiceWatch}
import bulkhead.lab.sample.Retained

import java.net.URI
import java.nio.file.Path
import scala.concurrent.duration.*

/**
 * The phases of one fault run: load before the fault, the fault held, load after it cleared. A fault whose calls fail
 * only at the SOAP client's timeout is held `holdPastTimeout` instead, past that timeout; a dependency that hangs is held
 * `holdHung`, many times the SOAP and Redis timeouts (minutes in the long form).
 *
 * `recovery` is the longest the load goes on after the clearing. With a `steadyTail`, a run ends sooner, once its OK
 * throughput has been back ([[Recovery]], the verdict's rule) for that long: most runs are back within 1-3 s, and the
 * tail shows that they stay back. A fault that degrades answers runs the whole phase: its answers are OK throughout
 * (the request log cannot see a degraded answer), and the verdict reads the run's last seconds for degraded answers.
 */
final case class Phases(baseline: FiniteDuration, hold: FiniteDuration, holdPastTimeout: FiniteDuration,
    recovery: FiniteDuration, holdHung: FiniteDuration = 15.seconds, steadyTail: Option[FiniteDuration] = None):
  def holdOf(fault: FaultCase): FiniteDuration =
    if fault.hung then holdHung else if fault.pastTimeout then holdPastTimeout else hold
  /** The run's longest length, its recovery phase run to the end. */
  def total(fault: FaultCase): FiniteDuration = baseline + holdOf(fault) + recovery

  /**
   * Whether `fault`'s recovery phase may end at tenth `now` of the run, on its OK answers per tenth so far (the live
   * request log's, [[bulkhead.lab.record.FaultTimeline.okPerTenth]]); the fault injected at `injectAt`, cleared at
   * `clearAt` (seconds of the run).
   */
  def recovered(fault: FaultCase, okPerTenth: Seq[Int], injectAt: Double, clearAt: Double, now: Int): Boolean =
    tailOf(fault).exists(Recovery.steady(okPerTenth, injectAt, clearAt, _, now))

  /** The steady tail that ends `fault`'s recovery phase early; None: it runs the whole phase. */
  def tailOf(fault: FaultCase): Option[FiniteDuration] = steadyTail.filterNot(_ => fault.expect.degrades)

/**
 * A fault run as a load: `users` steady closed-loop users on the URL's collection (`/customers` -> `/customers/{id}`,
 * ids 1..`customers`) throughout, the fault injected after the baseline through the run's [[FaultControls]] (made on
 * the run's request log by `controls`), held, cleared, and the users stopped after the recovery. Its figures are the
 * closed loop's, every user group's requests counted; [[timeline]] gives the rest of what it recorded.
 */
final class FaultDriver(fault: FaultCase, phases: Phases, users: Int, customers: Int,
    controls: (RequestLog, Int => String) => FaultControls, progress: String => Unit) extends LoadDriver:
  @volatile private var ran: Option[FaultRan] = None

  def concurrency: Int = users
  /** The phases' whole length until the run ends, then the load's real length (the recovery may have ended early). */
  def measuredSeconds: Double = ran.fold(phases.total(fault).toMillis / 1000.0)(_.endAt)
  def describe(url: String): String =
    s"$users closed-loop keep-alive users on $url/{id}; ${fault.name} injected after " +
      s"${phases.baseline.toMillis / 1000.0} s, held ${phases.holdOf(fault).toMillis / 1000.0} s, then " +
      (phases.tailOf(fault) match
        case Some(tail) => s"up to ${phases.recovery.toMillis / 1000.0} s of recovery (ended once OK throughput was " +
            s"back for ${tail.toMillis / 1000.0} s)"
        case None => s"${phases.recovery.toMillis / 1000.0} s of recovery")

  def run(url: String, dir: Path): Either[String, LoadFigures] =
    LoadDriver.requireLoopback(url)
    val log = RequestLog()
    val path = FaultRan.ids(url, customers)
    val target = controls(log, path)
    def now = (System.nanoTime() - log.t0Nanos) / 1e9
    val hold = phases.holdOf(fault)
    val watcher = target.watch()
    val steady = ClosedLoopUsers.start(UserGroup("steady", users, URI.create(url).getPort, path), log)
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
      awaitRecovery(log, injectAt, clearAt, () => now)
      val ended = steady.stop() & target.stopAll()
      val endAt = now
      target.releaseAll()
      val entries = log.all
      ran = Some(FaultRan(injectAt, clearAt, endAt, entries, ended, Some(watcher.stop(endAt)), target.hostileClients))
      Right(ClosedLoopUsers.figures(entries, users, 0.0, endAt, describe(url)))
    finally
      steady.abandon()
      target.stopAll()
      target.releaseAll()
      watcher.stopNow()

  /**
   * Waits out the recovery phase: its whole length, or with a steady tail until [[Phases.recovered]] says so on the
   * live `log`, read every [[FaultDriver.RecoveryPoll]], and at most the whole length.
   */
  private def awaitRecovery(log: RequestLog, injectAt: Double, clearAt: Double, now: () => Double): Unit =
    val tail = phases.tailOf(fault)
    if tail.isEmpty then Thread.sleep(phases.recovery.toMillis)
    else
      // From here, as the whole phase is: clearing a fault (a Redis restarted) takes time of its own.
      val end = now() + phases.recovery.toMillis / 1000.0
      def back =
        // Only the tenths before the current one are complete: a window ending later would count part of a tenth.
        val tenth = (now() * 10).toInt
        phases.recovered(fault, FaultTimeline.okPerTenth(log.all, tenth + 1), injectAt, clearAt, tenth)
      var left = end - now()
      while left > 0 && !back do
        Thread.sleep(math.max(1L, math.min(FaultDriver.RecoveryPoll.toMillis, (left * 1000).toLong)))
        left = end - now()
      if left > 0 then progress(f"  back for ${tail.get.toMillis / 1000.0}%.1f s at ${now()}%.1f s, " +
        f"${now() - clearAt}%.1f s after clearing: recovery ended")

  /**
   * What the run recorded besides its figures, once it ran: the phases, every request by group and outcome, and
   * what the service retained `before` the fault and `after` the run; `mode` the service's SOAP mode.
   */
  def timeline(mode: String, before: Retained, after: Retained): FaultTimeline =
    FaultRan.timeline(ran, fault.name, mode, fault.expect, before, after)

object FaultDriver:
  /** How often the recovery phase reads the live request log: a tenth of a second, the recovery rule's resolution. */
  val RecoveryPoll: FiniteDuration = 100.millis

/**
 * What a fault's run recorded besides its figures: when the fault was injected and cleared and the load stopped
 * (seconds of the run's request log), every request, whether every user ended, the service watched from outside and
 * the hostile clients.
 */
private[faults] final case class FaultRan(injectAt: Double, clearAt: Double, endAt: Double,
    log: Seq[RequestLog.Entry], usersEnded: Boolean, watch: Option[ServiceWatch] = None,
    hostile: Seq[HostileClients] = Nil)

private[faults] object FaultRan:
  /** The paths a driver's users ask for: the URL's collection (`/customers`) and an id of 1..`customers`. */
  def ids(url: String, customers: Int): Int => String =
    val collection = URI.create(url).getPath
    n => s"$collection/${n % customers + 1}"

  /** The run's timeline, with what the service retained `before` and `after`; refused before the run ended. */
  def timeline(ran: Option[FaultRan], fault: String, mode: String, expect: FaultExpectation, before: Retained,
      after: Retained): FaultTimeline =
    val r = ran.getOrElse(throw IllegalStateException(s"$fault did not run"))
    FaultTimeline.of(fault, mode, expect, r.injectAt, r.clearAt, r.endAt, r.log, before, after, r.usersEnded, r.watch,
      r.hostile)
