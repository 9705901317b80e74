package bulkhead.service.enrichment

import bulkhead.service.config.EnrichmentSettings
import org.apache.pekko.actor.typed.scaladsl.AskPattern.*
import org.apache.pekko.actor.typed.scaladsl.Behaviors
import org.apache.pekko.actor.typed.{ActorRef, ActorSystem, SupervisorStrategy}
import org.apache.pekko.util.Timeout

import java.util.concurrent.TimeoutException
import java.util.concurrent.atomic.AtomicInteger
import scala.concurrent.{ExecutionContext, Future}

/**
 * `GET /customers/{id}`: validates the id, sheds load above `max-in-flight`, and asks the router, whose routees call
 * the third party and Redis. `routing` places the routees: on this node, or on every node of a cluster.
 */
final class EnrichmentPipeline(settings: EnrichmentSettings, soap: SoapClient, stores: ProfileStores,
    onDegraded: () => Unit, routing: CustomerRouting = CustomerRouting.Local)(using system: ActorSystem[?])
    extends CustomerLookup:
  private given ExecutionContext = system.executionContext
  private val inFlightCount = AtomicInteger()
  private val nextRoutee = AtomicInteger()
  // Above the longest a lookup takes (a wait for a SOAP slot, the call, the profile), with room for the reply; also the
  // bound on a lookup sent to a routee whose node died: it answers 504 when this runs out.
  private given Timeout = Timeout(settings.soap.admission.maxWait + settings.soap.requestTimeout +
    settings.redis.timeout + settings.retryAfter * 2)

  val router: ActorRef[CustomerRoutee.Command] =
    val routee = Behaviors.supervise(Behaviors.setup[CustomerRoutee.Command] { _ =>
      CustomerRoutee(soap, stores.forRoutee(nextRoutee.getAndIncrement()), onDegraded)
    }).onFailure[Exception](SupervisorStrategy.restart)
    routing.start(settings.routees, routee)

  /** Requests in the pipeline now. */
  def inFlight: Int = inFlightCount.get

  def lookup(rawId: String): Future[CustomerOutcome] =
    CustomerId.parse(rawId) match
      case Left(detail) => Future.successful(CustomerOutcome.BadId(detail))
      case Right(id) =>
        if inFlightCount.incrementAndGet() > settings.maxInFlight then
          inFlightCount.decrementAndGet()
          Future.successful(CustomerOutcome.Unavailable(
            s"overloaded: ${settings.maxInFlight} requests in flight (bulkhead.enrichment.max-in-flight)",
            settings.retryAfter))
        else
          // optimization: an answer goes on on the thread that replied (saves two dispatcher tasks per lookup); the
          // ask's timeout fires on the scheduler's thread, so its 504 is made on the dispatcher.
          val answer = router.ask[CustomerOutcome](CustomerRoutee.Lookup(id, _)).recoverWith {
            case _: TimeoutException =>
              Future(CustomerOutcome.ThirdPartyTimeout("the pipeline did not answer in time"))
          }(ExecutionContext.parasitic)
          answer.onComplete(_ => inFlightCount.decrementAndGet())(ExecutionContext.parasitic)
          answer
