package bulkhead.stub

import org.apache.pekko.actor.Scheduler
import org.apache.pekko.http.scaladsl.model.HttpResponse

import java.util.concurrent.ConcurrentHashMap
import scala.concurrent.duration.*
import scala.concurrent.{ExecutionContext, Future, Promise}
import scala.jdk.CollectionConverters.*

/**
 * Answers waiting for their latency (or held by the no-answer fault). When the latency drops or the no-answer fault
 * is cleared, waiting answers are released at once if they already waited the new latency: a third party that
 * recovers answers what it holds, so the client's view of "the fault cleared" starts when the fault is cleared, not
 * one old latency later.
 */
final class HeldAnswers(scheduler: Scheduler)(using ExecutionContext):
  private final class Held(val arrivedNanos: Long, val answer: () => HttpResponse, val holdsNoAnswer: Boolean):
    val promise: Promise[HttpResponse] = Promise()
    def waitedMs: Long = (System.nanoTime() - arrivedNanos) / 1_000_000

  private val held = ConcurrentHashMap.newKeySet[Held]()

  /** An answer given after `delay`; `noAnswer` holds it until `hold` ends or the fault is cleared. */
  def answerAfter(delay: FiniteDuration, answer: () => HttpResponse, noAnswer: Option[(FiniteDuration, HttpResponse)])
      : Future[HttpResponse] =
    val h = Held(System.nanoTime(), answer, noAnswer.isDefined)
    held.add(h)
    noAnswer match
      case Some((hold, timeoutAnswer)) => schedule(h, hold, () => timeoutAnswer)
      case None => schedule(h, delay, answer)
    h.promise.future.onComplete(_ => held.remove(h))
    h.promise.future

  /** The third party's latency or faults changed: release what the new state would already have answered. */
  def release(latency: Latency, noAnswerActive: Boolean): Unit =
    held.asScala.foreach { h =>
      if !h.holdsNoAnswer || !noAnswerActive then
        val remaining = latency.sampleMs() - h.waitedMs
        if remaining <= 0 then h.promise.trySuccess(h.answer())
        else schedule(h, remaining.millis, h.answer)
    }

  def size: Int = held.size

  private def schedule(h: Held, delay: FiniteDuration, answer: () => HttpResponse): Unit =
    scheduler.scheduleOnce(delay)(h.promise.trySuccess(answer()))
