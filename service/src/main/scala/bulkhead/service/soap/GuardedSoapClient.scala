package bulkhead.service.soap

import bulkhead.service.config.BreakerSettings
import bulkhead.service.enrichment.{BreakerState, CircuitState, SoapClient, ThirdPartyCustomer, ThirdPartyFailure}
import org.apache.pekko.actor.typed.ActorSystem
import org.apache.pekko.pattern.{CircuitBreaker, CircuitBreakerOpenException}

import scala.concurrent.{ExecutionContext, Future}
import scala.util.{Success, Try}

/** The third party behind Pekko's circuit breaker: after repeated failures, calls are refused at once (503). */
final class GuardedSoapClient(underlying: SoapClient, settings: BreakerSettings, retryAfterMillis: Long)(using
    system: ActorSystem[?]) extends SoapClient with BreakerState:
  private given ExecutionContext = system.executionContext

  @volatile private var current: CircuitState = CircuitState.Closed
  def state: CircuitState = current
  private val opened = java.util.concurrent.atomic.AtomicLong()
  def openings: Long = opened.get

  private val breaker = CircuitBreaker(system.classicSystem.scheduler, settings.maxFailures, settings.callTimeout,
    settings.resetTimeout)
    .onClose { current = CircuitState.Closed }
    .onHalfOpen { current = CircuitState.HalfOpen }
    .onOpen {
      current = CircuitState.Open
      opened.incrementAndGet()
      // Rare and decisive: every call is refused (503) from now until the reset timeout.
      system.classicSystem.log.warning("SOAP circuit breaker opened after {} consecutive failures; calls refused for {}",
        settings.maxFailures, settings.resetTimeout)
    }

  private val isFailure: Try[Either[ThirdPartyFailure, ThirdPartyCustomer]] => Boolean =
    case Success(Left(_: ThirdPartyFailure.UnknownCustomer)) => false
    case Success(Left(_: ThirdPartyFailure.Refused)) => false
    case Success(Left(_)) => true
    case Success(Right(_)) => false
    case _ => true

  def getCustomer(id: Int): Future[Either[ThirdPartyFailure, ThirdPartyCustomer]] =
    // optimization: on the thread that completes the call (saves a dispatcher task per call), but for the breaker's
    // own timeout: the scheduler's thread completes that one, and what follows (the next waiting call) is dispatched.
    breaker.withCircuitBreaker(underlying.getCustomer(id), isFailure).recoverWith {
      case e: CircuitBreakerOpenException =>
        Future.successful(Left(ThirdPartyFailure.Refused("circuit breaker open: the third party is failing",
          e.remainingDuration.toMillis.max(retryAfterMillis))))
      case _: java.util.concurrent.TimeoutException =>
        Future(Left(ThirdPartyFailure.Timeout(s"circuit breaker call timeout ${settings.callTimeout}")))
    }(ExecutionContext.parasitic)

  override def close(): Unit = underlying.close()
