package bulkhead.service.soap

import bulkhead.service.config.BreakerSettings
import bulkhead.service.enrichment.ThirdPartyCustomer
import org.apache.pekko.actor.typed.ActorSystem
import org.apache.pekko.pattern.{CircuitBreaker, CircuitBreakerOpenException}

import java.util.concurrent.atomic.AtomicInteger
import scala.concurrent.{ExecutionContext, Future}
import scala.util.{Success, Try}

/** The third party behind Pekko's circuit breaker: after repeated failures, calls are refused at once (503). */
final class GuardedSoapClient(underlying: SoapClient, settings: BreakerSettings, retryAfterMillis: Long)(using
    system: ActorSystem[?]) extends SoapClient:
  private given ExecutionContext = system.executionContext

  /** 0 closed, 1 half-open, 2 open: published in /metrics. */
  val state: AtomicInteger = AtomicInteger(0)
  /**
   * Times the breaker opened, published in /metrics: with a 1 s reset-timeout the open state can begin and end
   * between two scrapes of `state`, the count cannot be missed.
   */
  val openings: java.util.concurrent.atomic.AtomicLong = java.util.concurrent.atomic.AtomicLong()

  private val breaker = CircuitBreaker(system.classicSystem.scheduler, settings.maxFailures, settings.callTimeout,
    settings.resetTimeout)
    .onClose(state.set(0))
    .onHalfOpen(state.set(1))
    .onOpen {
      state.set(2)
      openings.incrementAndGet()
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
    breaker.withCircuitBreaker(underlying.getCustomer(id), isFailure).recover {
      case e: CircuitBreakerOpenException =>
        Left(ThirdPartyFailure.Refused("circuit breaker open: the third party is failing",
          e.remainingDuration.toMillis.max(retryAfterMillis)))
      case _: java.util.concurrent.TimeoutException =>
        Left(ThirdPartyFailure.Timeout(s"circuit breaker call timeout ${settings.callTimeout}"))
    }

  override def close(): Unit = underlying.close()
