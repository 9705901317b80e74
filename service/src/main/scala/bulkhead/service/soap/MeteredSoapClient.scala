package bulkhead.service.soap

import bulkhead.service.enrichment.{SoapClient, ThirdPartyCustomer, ThirdPartyFailure}
import io.micrometer.core.instrument.{Gauge, MeterRegistry, Timer}

import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import scala.concurrent.{ExecutionContext, Future}

/**
 * The SOAP client with its calls in /metrics: calls in flight now, and each call's time (`soap_client_calls_seconds`).
 * The lab reads the third party's latency and the host pool's occupancy from them (Little's law on the client).
 */
final class MeteredSoapClient(underlying: SoapClient, registry: MeterRegistry) extends SoapClient:
  private val inFlight = AtomicInteger()
  Gauge.builder("soap.client.in.flight", inFlight, _.get.toDouble).baseUnit("calls")
    .description("SOAP calls started and not yet answered (queued for a connection or a thread included)")
    .register(registry)
  private val calls = Timer.builder("soap.client.calls")
    .description("time of each SOAP call to the third party, answered or failed").register(registry)

  def getCustomer(id: Int): Future[Either[ThirdPartyFailure, ThirdPartyCustomer]] =
    val start = System.nanoTime()
    inFlight.incrementAndGet()
    underlying.getCustomer(id).andThen { _ =>
      inFlight.decrementAndGet()
      calls.record(System.nanoTime() - start, TimeUnit.NANOSECONDS)
    }(ExecutionContext.parasitic)

  override def close(): Unit = underlying.close()
