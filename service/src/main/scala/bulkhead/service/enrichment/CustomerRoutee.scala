package bulkhead.service.enrichment

import org.apache.pekko.actor.typed.scaladsl.Behaviors
import org.apache.pekko.actor.typed.{ActorRef, Behavior}
import org.slf4j.LoggerFactory

import scala.concurrent.duration.*
import scala.concurrent.{ExecutionContext, Future}

/** A routee of the enrichment router: calls the third party, then Redis, and replies. It never blocks. */
object CustomerRoutee:
  sealed trait Command
  final case class Lookup(id: Int, replyTo: ActorRef[CustomerOutcome]) extends Command

  /** Called when Redis could not be read and the answer was degraded. */
  type OnDegraded = () => Unit

  // Not the actor's context.log: failures are read on the futures' threads.
  private val log = LoggerFactory.getLogger("bulkhead.enrichment")
  // optimization: a failing third party fails hundreds of calls a second, all alike: a line a second per kind, with
  // how many came since the last.
  private final class Throttle:
    val last = java.util.concurrent.atomic.AtomicLong(Long.MinValue)
    val since = java.util.concurrent.atomic.AtomicInteger()
  private val throttles = java.util.concurrent.ConcurrentHashMap[String, Throttle]()

  private def logged(kind: String, detail: String): Unit =
    val t = throttles.computeIfAbsent(kind, _ => Throttle())
    t.since.incrementAndGet()
    val now = System.nanoTime()
    val before = t.last.get
    if (before == Long.MinValue || now - before >= 1_000_000_000L) && t.last.compareAndSet(before, now) then
      log.warn("third party {} ({} since the last report): {}", kind, t.since.getAndSet(0), detail)

  def apply(soap: SoapClient, store: ProfileStore, onDegraded: OnDegraded): Behavior[Command] =
    Behaviors.receive { (context, message) =>
      message match
        case Lookup(id, replyTo) =>
          enrich(soap, store, id, onDegraded)(using context.executionContext)
            .foreach(replyTo ! _)(using ExecutionContext.parasitic)
          Behaviors.same
    }

  /**
   * SOAP first (its latency dominates), then the profile; a Redis failure degrades the answer, never fails it.
   * optimization: each step runs on the thread that completed the one before (the SOAP client's, then Redis's): saves
   * a dispatcher task per step, each only to merge two values. A failure's outcome, which may write to the log, is
   * made on the dispatcher.
   */
  def enrich(soap: SoapClient, store: ProfileStore, id: Int, onDegraded: OnDegraded)(using
      ec: ExecutionContext): Future[CustomerOutcome] =
    soap.getCustomer(id).flatMap {
      case Right(customer) =>
        store.profile(id).map {
          case Right(Some(profile)) => CustomerOutcome.Found(EnrichedCustomer.merge(customer, Loyalty.of(profile)))
          case Right(None) => CustomerOutcome.Found(EnrichedCustomer.merge(customer, Loyalty.Empty))
          case Left(_) =>
            onDegraded()
            CustomerOutcome.Found(EnrichedCustomer.merge(customer, Loyalty.Unavailable))
        }(using ExecutionContext.parasitic)
      case Left(failure) => Future(outcomeOf(failure))
    }(using ExecutionContext.parasitic)

  /**
   * The outcome of a failed call. Clients get fixed sentences: what the third party or its parser said (fault strings,
   * parser messages naming classes or content) goes to the log only.
   */
  def outcomeOf(failure: ThirdPartyFailure): CustomerOutcome = failure match
    case ThirdPartyFailure.UnknownCustomer(id) => CustomerOutcome.NotFound(s"customer $id is unknown to the third party")
    case ThirdPartyFailure.Timeout(detail) =>
      logged("timed out", detail)
      CustomerOutcome.ThirdPartyTimeout("the third party did not answer in time")
    case ThirdPartyFailure.Fault(detail) =>
      logged("answered with a fault", detail)
      CustomerOutcome.ThirdPartyFailed("the third party answered with a fault")
    case ThirdPartyFailure.Malformed(detail) =>
      logged("answer unreadable", detail)
      CustomerOutcome.ThirdPartyFailed("the third party's answer could not be read")
    case ThirdPartyFailure.Unreachable(detail) =>
      logged("unreachable", detail)
      CustomerOutcome.ThirdPartyFailed("the third party could not be reached")
    case ThirdPartyFailure.Refused(detail, retryAfterMillis) =>
      CustomerOutcome.Unavailable(detail, ((retryAfterMillis + 999) / 1000).max(1L).seconds)
