package bulkhead.service.work

import scala.concurrent.{Future, Promise}

/** The work was given up because its request was abandoned: nobody waits for its answer. */
object WorkAbandoned extends RuntimeException("the request was abandoned", null, false, false)

/**
 * `ms` of sleep on a pool thread that can be given up. Dropped without sleeping when its request is abandoned while
 * it waits in the pool's queue; interrupted when abandoned while it sleeps, so the thread goes back to the pool at
 * once. `release` runs exactly once, when the thread is done with it (run or dropped), so an in-flight count that
 * it decrements counts what holds or waits for a thread.
 */
final class BlockingSleep(mode: WorkMode, ms: Int, release: () => Unit) extends Runnable:
  private val promise = Promise[WorkDone]()
  // Guarded by `this`: the state and the sleeping thread, so an interrupt never reaches the pool's next task.
  private var state: BlockingSleep.State = BlockingSleep.State.Queued
  private var sleeper: Thread = null

  def result: Future[WorkDone] = promise.future

  def run(): Unit =
    val start = synchronized {
      if state == BlockingSleep.State.Queued then
        state = BlockingSleep.State.Sleeping
        sleeper = Thread.currentThread()
        true
      else false
    }
    if start then
      try
        Thread.sleep(ms.toLong)
        promise.trySuccess(WorkDone(mode.key, ms, Thread.currentThread().getName))
      catch case _: InterruptedException => promise.tryFailure(WorkAbandoned)
      finally
        synchronized {
          state = BlockingSleep.State.Done
          sleeper = null
          // An interrupt that raced the end of the sleep must not reach the pool's next task.
          Thread.interrupted()
        }
        release()
    else release()

  /** Gives the work up: dropped if still queued, woken if sleeping, nothing if done. */
  def cancel(): Unit =
    val dropped = synchronized {
      state match
        case BlockingSleep.State.Queued =>
          state = BlockingSleep.State.Dropped
          true
        case BlockingSleep.State.Sleeping =>
          sleeper.interrupt()
          false
        case _ => false
    }
    if dropped then promise.tryFailure(WorkAbandoned)

object BlockingSleep:
  private enum State:
    case Queued, Sleeping, Done, Dropped
