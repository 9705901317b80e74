package bulkhead.service.work

import bulkhead.service.dispatch.{Pools, TimerPool}
import org.apache.pekko.actor.typed.ActorSystem

import scala.concurrent.duration.*
import scala.concurrent.{ExecutionContext, Future}

/** What a unit of work reports: where it ran, for how long. */
final case class WorkDone(mode: String, ms: Int, thread: String)

/** Why work was refused before it started. */
enum WorkRefusal:
  case BadMillis(detail: String)
  case Unsupported(detail: String)

/** Runs `ms` of work on the pool a [[WorkMode]] names. */
final class WorkRunner(system: ActorSystem[?], timer: TimerPool, maxMs: Int):
  private val default = Pools.executionContext(system, Pools.Default)
  private val blocking = Pools.executionContext(system, Pools.Blocking)
  private lazy val virtual = Pools.executionContext(system, Pools.Virtual)

  def run(mode: WorkMode, ms: Int): Either[WorkRefusal, Future[WorkDone]] =
    if ms < 0 || ms > maxMs then Left(WorkRefusal.BadMillis(s"ms must be between 0 and $maxMs, was $ms"))
    else
      mode match
        case WorkMode.Default => Right(sleepOn(default, mode, ms))
        case WorkMode.Pool => Right(sleepOn(blocking, mode, ms))
        case WorkMode.Virtual if !Pools.virtualThreadsAvailable =>
          Left(WorkRefusal.Unsupported(
            s"virtual threads need JDK 21+, this service runs on JDK ${Runtime.version()}; start it on a newer JDK"))
        case WorkMode.Virtual => Right(sleepOn(virtual, mode, ms))
        case WorkMode.Async =>
          Right(timer.after(ms.millis)(WorkDone(mode.key, ms, "timer")))

  private def sleepOn(ec: ExecutionContext, mode: WorkMode, ms: Int): Future[WorkDone] =
    Future {
      Thread.sleep(ms.toLong)
      WorkDone(mode.key, ms, Thread.currentThread().getName)
    }(ec)
