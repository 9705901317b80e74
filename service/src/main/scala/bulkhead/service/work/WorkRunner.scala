package bulkhead.service.work

import bulkhead.service.config.WorkSettings
import bulkhead.service.dispatch.{Pools, TimerPool}
import org.apache.pekko.actor.typed.ActorSystem

import java.util.concurrent.RejectedExecutionException
import java.util.concurrent.atomic.{AtomicBoolean, AtomicInteger}
import scala.concurrent.duration.*
import scala.concurrent.{ExecutionContext, Future}

/** What a unit of work reports: where it ran, for how long. */
final case class WorkDone(mode: String, ms: Int, thread: String)

/** Why work was refused before it started. */
enum WorkRefusal:
  case BadMillis(detail: String)
  case Unsupported(detail: String)
  /** The mode is switched off by the operator (`/work/default` unless allowed). */
  case Disabled(detail: String)
  /** The mode has `max-in-flight` requests already: retry after `retryAfter`. */
  case Busy(detail: String, retryAfter: FiniteDuration)

/**
 * Runs `ms` of work on the pool a [[WorkMode]] names, at most `max-in-flight` requests per mode at once (running or
 * waiting for a thread), and gives work up when its request is abandoned: queued work is dropped, sleeping work is
 * interrupted, a timer is removed. A mode's in-flight count falls when its thread or timer is free again.
 */
final class WorkRunner(system: ActorSystem[?], timer: TimerPool, settings: WorkSettings):
  private val default = Pools.executionContext(system, Pools.Default)
  private val blocking = Pools.executionContext(system, Pools.Blocking)
  private lazy val virtual = Pools.executionContext(system, Pools.Virtual)
  private val counts: Map[WorkMode, AtomicInteger] = WorkMode.values.map(_ -> AtomicInteger()).toMap

  /** Requests of a mode in flight now (running, sleeping, queued, or waiting on the timer). */
  def inFlight(mode: WorkMode): Int = counts(mode).get

  def run(mode: WorkMode, ms: Int, cancellation: Cancellation = Cancellation.Never)
      : Either[WorkRefusal, Future[WorkDone]] =
    if ms < 0 || ms > settings.maxMs then
      Left(WorkRefusal.BadMillis(s"ms must be between 0 and ${settings.maxMs}, was $ms"))
    else
      mode match
        case WorkMode.Default if !settings.allowDefaultDispatcher =>
          Left(WorkRefusal.Disabled("/work/default blocks the threads that serve every request (the seeds' " +
            "anti-pattern, kept to be measured); start the service with --allow-default-dispatcher-work " +
            "(bulkhead.service.work.allow-default-dispatcher = on) to run it"))
        case WorkMode.Virtual if !Pools.virtualThreadsAvailable =>
          Left(WorkRefusal.Unsupported(
            s"virtual threads need JDK 21+, this service runs on JDK ${Runtime.version()}; start it on a newer JDK"))
        case _ => admit(mode)(release => start(mode, ms, cancellation, release))

  private def admit(mode: WorkMode)(work: (() => Unit) => Future[WorkDone]): Either[WorkRefusal, Future[WorkDone]] =
    val count = counts(mode)
    val limit = mode match
      case WorkMode.Default => settings.limits.default
      case WorkMode.Pool => settings.limits.pool
      case WorkMode.Virtual => settings.limits.virtual
      case WorkMode.Async => settings.limits.async
    if count.incrementAndGet() > limit then
      count.decrementAndGet()
      Left(WorkRefusal.Busy(s"overloaded: $limit requests of /work/${mode.key} in flight " +
        s"(bulkhead.service.work.max-in-flight.${mode.key})", settings.retryAfter))
    else
      val released = AtomicBoolean(false)
      try Right(work(() => if released.compareAndSet(false, true) then count.decrementAndGet()))
      catch
        // The pool refused the task (its queue is full): a refusal like max-in-flight's, never run elsewhere.
        case e: RejectedExecutionException =>
          Left(WorkRefusal.Busy(s"overloaded: /work/${mode.key}'s pool is full (${e.getMessage})", settings.retryAfter))

  private def start(mode: WorkMode, ms: Int, cancellation: Cancellation, release: () => Unit): Future[WorkDone] =
    mode match
      case WorkMode.Default => sleepOn(default, mode, ms, cancellation, release)
      case WorkMode.Pool => sleepOn(blocking, mode, ms, cancellation, release)
      case WorkMode.Virtual => sleepOn(virtual, mode, ms, cancellation, release)
      case WorkMode.Async =>
        val (done, cancel) = timer.cancellableAfter(ms.millis)(WorkDone(mode.key, ms, "timer"))
        done.onComplete(_ => release())(ExecutionContext.parasitic)
        cancellation.onCancel(() => cancel(WorkAbandoned))
        done

  private def sleepOn(ec: ExecutionContext, mode: WorkMode, ms: Int, cancellation: Cancellation,
      release: () => Unit): Future[WorkDone] =
    val sleep = BlockingSleep(mode, ms, release)
    try ec.execute(sleep)
    catch
      case e: Throwable =>
        release()
        throw e
    cancellation.onCancel(() => sleep.cancel())
    sleep.result
