package bulkhead.service.soap

import bulkhead.service.enrichment.{SoapClient, ThirdPartyCustomer, ThirdPartyFailure}
import io.micrometer.core.instrument.{Gauge, MeterRegistry, Timer}

import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import scala.concurrent.{ExecutionContext, Future}
import scala.util.{Failure, Success, Try}

/**
 * The SOAP client with its calls in /metrics: calls in flight now, and each call's time (`soap_client_calls_seconds`)
 * by outcome. The lab reads the third party's latency and the host pool's occupancy from them (Little's law on the
 * client): a call the third party answered held a connection for its exchange; one refused before it was sent (no slot
 * within admission's max-wait, the circuit open) held nothing, so it must not dilute the hold.
 */
final class MeteredSoapClient(underlying: SoapClient, registry: MeterRegistry) extends SoapClient:
  private val inFlight = AtomicInteger()
  Gauge.builder("soap.client.in.flight", inFlight, _.get.toDouble).baseUnit("calls")
    .description("SOAP calls started and not yet answered (those waiting for a slot included)")
    .register(registry)
  private val calls: Map[String, Timer] = MeteredSoapClient.Outcomes.map(o => o -> Timer.builder("soap.client.calls")
    .description("time of each SOAP call to the third party, by outcome (answered: the third party sent an answer)")
    .tag("outcome", o).register(registry)).toMap

  def getCustomer(id: Int): Future[Either[ThirdPartyFailure, ThirdPartyCustomer]] =
    val start = System.nanoTime()
    inFlight.incrementAndGet()
    underlying.getCustomer(id).andThen { result =>
      inFlight.decrementAndGet()
      calls(MeteredSoapClient.outcome(result)).record(System.nanoTime() - start, TimeUnit.NANOSECONDS)
    }(ExecutionContext.parasitic)

  override def close(): Unit = underlying.close()

object MeteredSoapClient:
  val Outcomes: Seq[String] = Seq("answered", "timeout", "unreachable", "refused")

  /** What became of a call: the third party answered (a customer, an unknown id, a fault, even an unreadable body). */
  def outcome(result: Try[Either[ThirdPartyFailure, ThirdPartyCustomer]]): String = result match
    case Success(Right(_)) => "answered"
    case Success(Left(_: ThirdPartyFailure.UnknownCustomer | _: ThirdPartyFailure.Fault |
        _: ThirdPartyFailure.Malformed)) => "answered"
    case Success(Left(_: ThirdPartyFailure.Timeout)) => "timeout"
    case Success(Left(_: ThirdPartyFailure.Refused)) => "refused"
    case Success(Left(_: ThirdPartyFailure.Unreachable)) | Failure(_) => "unreachable"
