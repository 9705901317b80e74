package bulkhead.service.enrichment

import org.apache.pekko.actor.typed.scaladsl.Behaviors
import org.apache.pekko.actor.typed.{ActorRef, Behavior}

import scala.concurrent.duration.*
import scala.concurrent.{ExecutionContext, Future}

/** A routee of the enrichment router: calls the third party, then Redis, and replies. It never blocks. */
object CustomerRoutee:
  sealed trait Command
  final case class Lookup(id: Int, replyTo: ActorRef[CustomerOutcome]) extends Command

  /** Called when Redis could not be read and the answer was degraded. */
  type OnDegraded = () => Unit

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

  def outcomeOf(failure: ThirdPartyFailure): CustomerOutcome = failure match
    case ThirdPartyFailure.UnknownCustomer(id) => CustomerOutcome.NotFound(s"customer $id is unknown to the third party")
    case ThirdPartyFailure.Timeout(detail) => CustomerOutcome.ThirdPartyTimeout(detail)
    case ThirdPartyFailure.Fault(detail) => CustomerOutcome.ThirdPartyFailed(detail)
    case ThirdPartyFailure.Malformed(detail) => CustomerOutcome.ThirdPartyFailed(s"malformed answer: $detail")
    case ThirdPartyFailure.Unreachable(detail) => CustomerOutcome.ThirdPartyFailed(s"third party unreachable: $detail")
    case ThirdPartyFailure.Refused(detail, retryAfterMillis) =>
      CustomerOutcome.Unavailable(detail, ((retryAfterMillis + 999) / 1000).max(1L).seconds)
