package bulkhead.stub

import org.apache.pekko.http.scaladsl.model.HttpResponse

import java.util.concurrent.{ConcurrentHashMap, Executors, ScheduledExecutorService, TimeUnit}
import scala.concurrent.duration.*
import scala.concurrent.{ExecutionContext, Future, Promise}
import scala.jdk.CollectionConverters.*

/**
 * Answers waiting for their latency (or held by the no-answer fault). When the latency drops or the no-answer fault
 * is cleared, waiting answers are released at once if they already waited the new latency: a third party that
 * recovers answers what it holds, so the client's view of "the fault cleared" starts when the fault is cleared, not
 * one old latency later. The hang fault's answers are not released: it models a third party that never answers the
 * calls it took while hung.
 *
 * The latency is timed by a JDK scheduled executor, not Pekko's scheduler: Pekko's timer wheel fires on 10 ms ticks and
 * rounds every delay up to them, so a stub set to 100 ms answered in 120-125 ms (wrk with 5 connections straight at
 * it served 40 req/s, not 50), and every cap computed from the stub's latency was a fifth too high.
 */
final class HeldAnswers(timer: ScheduledExecutorService)(using ExecutionContext):
  private final class Held(val arrivedNanos: Long, val answer: () => HttpResponse, val holdsNoAnswer: Boolean,
      val releasable: Boolean):
    val promise: Promise[HttpResponse] = Promise()
    def waitedMs: Long = (System.nanoTime() - arrivedNanos) / 1_000_000

  private val held = ConcurrentHashMap.newKeySet[Held]()

  /**
   * An answer given after `delay`; `noAnswer` holds it until `hold` ends or the fault is cleared, or, not
   * `releasable`, until `hold` ends whatever happens meanwhile.
   */
  def answerAfter(delay: FiniteDuration, answer: () => HttpResponse, noAnswer: Option[(FiniteDuration, HttpResponse)],
      releasable: Boolean = true): Future[HttpResponse] =
    val h = Held(System.nanoTime(), answer, noAnswer.isDefined, releasable)
    held.add(h)
    noAnswer match
      case Some((hold, timeoutAnswer)) => schedule(h, hold, () => timeoutAnswer)
      case None => schedule(h, delay, answer)
    h.promise.future.onComplete(_ => held.remove(h))
    h.promise.future

  /** The third party's latency or faults changed: release what the new state would already have answered. */
  def release(latency: Latency, noAnswerActive: Boolean): Unit =
    held.asScala.foreach { h =>
      if h.releasable && (!h.holdsNoAnswer || !noAnswerActive) then
        val remaining = latency.sampleMs() - h.waitedMs
        if remaining <= 0 then h.promise.trySuccess(h.answer())
        else schedule(h, remaining.millis, h.answer)
    }

  def size: Int = held.size

  /** The calls the hang fault holds: taken, never to be answered (until the hold ends). */
  def hung: Int = held.asScala.count(!_.releasable)

  private def schedule(h: Held, delay: FiniteDuration, answer: () => HttpResponse): Unit =
    timer.schedule((() => h.promise.trySuccess(answer())): Runnable, delay.toNanos, TimeUnit.NANOSECONDS)

object HeldAnswers:
  /** The one timer thread of the stub's latencies, named so that a thread dump shows it; a daemon. */
  def timer(): ScheduledExecutorService =
    Executors.newSingleThreadScheduledExecutor { r =>
      val t = Thread(r, "bulkhead-stub-latency-timer")
      t.setDaemon(true)
      t
    }
