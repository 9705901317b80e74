package bulkhead.service.enrichment

import bulkhead.service.redis.ProfileStore
import bulkhead.service.soap.{SoapClient, ThirdPartyFailure}
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

  def apply(soap: SoapClient, store: ProfileStore, onDegraded: OnDegraded): Behavior[Command] =
    Behaviors.receive { (context, message) =>
      message match
        case Lookup(id, replyTo) =>
          enrich(soap, store, id, onDegraded)(using context.executionContext).foreach(replyTo ! _)(using
            context.executionContext)
          Behaviors.same
    }

  /** SOAP first (its latency dominates), then the profile; a Redis failure degrades the answer, never fails it. */
  def enrich(soap: SoapClient, store: ProfileStore, id: Int, onDegraded: OnDegraded)(using
      ExecutionContext): Future[CustomerOutcome] =
    soap.getCustomer(id).flatMap {
      case Right(customer) =>
        store.profile(id).map {
          case Right(Some(profile)) => CustomerOutcome.Found(EnrichedCustomer.merge(customer, Loyalty.of(profile)))
          case Right(None) => CustomerOutcome.Found(EnrichedCustomer.merge(customer, Loyalty.Empty))
          case Left(_) =>
            onDegraded()
            CustomerOutcome.Found(EnrichedCustomer.merge(customer, Loyalty.Unavailable))
        }
      case Left(failure) => Future.successful(outcomeOf(failure))
    }

  /**
   * The outcome of a failed call. Clients get fixed sentences: what the third party or its parser said (fault strings,
   * parser messages naming classes or content) goes to the log only.
   */
  def outcomeOf(failure: ThirdPartyFailure): CustomerOutcome = failure match
    case ThirdPartyFailure.UnknownCustomer(id) => CustomerOutcome.NotFound(s"customer $id is unknown to the third party")
    case ThirdPartyFailure.Timeout(detail) =>
      log.warn("third party call timed out: {}", detail)
      CustomerOutcome.ThirdPartyTimeout("the third party did not answer in time")
    case ThirdPartyFailure.Fault(detail) =>
      log.warn("third party answered with a fault: {}", detail)
      CustomerOutcome.ThirdPartyFailed("the third party answered with a fault")
    case ThirdPartyFailure.Malformed(detail) =>
      log.warn("third party answer unreadable: {}", detail)
      CustomerOutcome.ThirdPartyFailed("the third party's answer could not be read")
    case ThirdPartyFailure.Unreachable(detail) =>
      log.warn("third party unreachable: {}", detail)
      CustomerOutcome.ThirdPartyFailed("the third party could not be reached")
    case ThirdPartyFailure.Refused(detail, retryAfterMillis) =>
      CustomerOutcome.Unavailable(detail, ((retryAfterMillis + 999) / 1000).max(1L).seconds)
