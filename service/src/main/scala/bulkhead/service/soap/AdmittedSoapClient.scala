package bulkhead.service.soap

import bulkhead.service.enrichment.{SoapClient, ThirdPartyCustomer, ThirdPartyFailure}
import org.apache.pekko.actor.{Cancellable, Scheduler}

import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.atomic.{AtomicBoolean, AtomicInteger}
import scala.annotation.tailrec
import scala.concurrent.duration.FiniteDuration
import scala.concurrent.{ExecutionContext, Future, Promise}
import scala.util.control.NonFatal

/**
 * Admission to the third party, the same in every SOAP mode: at most `slots` calls in flight (the non-blocking client's
 * connections, the work queue's threads, or permits for virtual threads), and up to `queue` calls waiting at most
 * `maxWait` for a slot, first come first served. A call that finds the waiting room full is refused at once, one that
 * got no slot within `maxWait` is refused then, and neither is ever sent: the service is at its cap, the third party is
 * not failing, so the refusal (503 with Retry-After) sits in front of the circuit breaker and never reaches it. A slot
 * is held until the call's answer, so a call that timed out frees it at its deadline.
 *
 * Why not a mechanism already there: Pekko's host pool bounds its queue by count (`max-open-requests`), not by time,
 * and sends a queued request whenever a connection frees, its caller gone or not (calls waited there past the SOAP
 * timeout and opened the breaker); a JDK Semaphore's `tryAcquire(timeout)` parks a thread, which the non-blocking client
 * must not. So this: a count of free slots and a queue of waiters, each claimed once, by a slot or by its timer.
 */
final class AdmittedSoapClient(underlying: SoapClient, slots: Int, queue: Int, maxWait: FiniteDuration,
    slotName: String, retryAfterMillis: Long, scheduler: Scheduler) extends SoapClient:
  require(slots > 0 && queue >= 0, s"slots ($slots) must be positive and queue ($queue) not negative")

  private type Answer = Either[ThirdPartyFailure, ThirdPartyCustomer]

  private val free = AtomicInteger(slots)
  private val waiters = ConcurrentLinkedQueue[Waiter]()
  private val waitingNow = AtomicInteger()
  private val full = Left(ThirdPartyFailure.Refused(
    s"the SOAP client is at its limit: $slots calls in flight and $queue waiting for a $slotName", retryAfterMillis))
  private val waitedTooLong = Left(ThirdPartyFailure.Refused(
    s"no SOAP $slotName free within $maxWait ($slots calls in flight)", retryAfterMillis))

  /** Calls waiting for a slot now. */
  def waiting: Int = waitingNow.get

  /** Slots held by calls in flight now. */
  def inFlight: Int = slots - free.get

  /** A call waiting for a slot: started by whoever claims it first, a freed slot or its timer (which refuses it). */
  private final class Waiter(val id: Int):
    val answer: Promise[Answer] = Promise()
    private val claimed = AtomicBoolean()
    @volatile var timer: Cancellable = Cancellable.alreadyCancelled
    def claim(): Boolean = claimed.compareAndSet(false, true)

  def getCustomer(id: Int): Future[Answer] =
    if take() then run(id)
    else if maxWait.length == 0 || waitingNow.incrementAndGet() > queue then
      if maxWait.length > 0 then waitingNow.decrementAndGet()
      Future.successful(full)
    else
      val w = Waiter(id)
      waiters.add(w)
      val expire: Runnable = () =>
        if w.claim() then
          waiters.remove(w)
          waitingNow.decrementAndGet()
          w.answer.success(waitedTooLong)
      w.timer = scheduler.scheduleOnce(maxWait, expire)(ExecutionContext.parasitic)
      // A slot freed between the failed take() and add() found no waiter and went back to `free`: take it now.
      if take() then
        if w.claim() then
          waiters.remove(w)
          start(w)
        else release()
      w.answer.future

  /** Takes a free slot, if any. */
  @tailrec private def take(): Boolean =
    val n = free.get
    if n <= 0 then false else free.compareAndSet(n, n - 1) || take()

  /** Runs a call on a slot it holds; the slot goes to the next waiter, or back to `free`, when the call answers. */
  private def run(id: Int): Future[Answer] =
    val answer =
      try underlying.getCustomer(id)
      catch case NonFatal(e) => Future.failed(e)
    answer.onComplete(_ => release())(ExecutionContext.parasitic)
    answer

  /** Starts a claimed waiter, out of the queue, on the slot its claimer holds. */
  private def start(w: Waiter): Unit =
    waitingNow.decrementAndGet()
    w.timer.cancel()
    w.answer.completeWith(run(w.id))

  /** Hands a freed slot to the oldest waiter still waiting, else frees it. */
  @tailrec private def release(): Unit =
    val w = waiters.poll()
    if w == null then
      free.incrementAndGet()
      // A waiter queued after the poll above may have missed this slot on its own second try: hand it over.
      if !waiters.isEmpty && take() then release()
    else if w.claim() then start(w)
    else release()

  override def close(): Unit = underlying.close()
