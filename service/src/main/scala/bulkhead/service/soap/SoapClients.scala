package bulkhead.service.soap

import bulkhead.service.config.{EnrichmentSettings, SoapMode}
import bulkhead.service.dispatch.{Pools, WorkQueuePool}
import bulkhead.service.enrichment.SoapClient
import io.micrometer.core.instrument.{Gauge, MeterRegistry}
import org.apache.pekko.actor.typed.ActorSystem

import java.util.concurrent.ThreadPoolExecutor

/** The SOAP client the configuration asks for, behind the circuit breaker, with the pool it blocks on (if any). */
final case class SoapClients(client: GuardedSoapClient, workQueue: Option[ThreadPoolExecutor]):
  def close(): Unit =
    client.close()
    workQueue.foreach(_.shutdownNow())

object SoapClients:
  /** The client of the configured mode, metered into `registry` beneath the breaker (refused calls are not calls). */
  def apply(settings: EnrichmentSettings, registry: MeterRegistry)(using system: ActorSystem[?]): SoapClients =
    val soap = settings.soap
    val retryAfterMillis = settings.retryAfter.toMillis
    val (client, queue): (SoapClient, Option[ThreadPoolExecutor]) = soap.mode match
      case SoapMode.NonBlocking =>
        // No base unit: Prometheus would append it (soap_client_connections_max_connections).
        Gauge.builder("soap.client.connections.max", () => soap.maxConnections)
          .description("connections the SOAP client's host pool may open to the third party").register(registry)
        (NonBlockingSoapClient(soap, settings.maxInFlight), None)
      case SoapMode.Blocking =>
        val pool = WorkQueuePool(Pools.SoapWorkQueue, soap.workQueue)
        (BlockingSoapClient(soap, pool, soap.workQueue.maxWait, retryAfterMillis, system.classicSystem.scheduler, ExchangeMeter(registry)),
          Some(pool))
      case SoapMode.Virtual =>
        require(Pools.virtualThreadsAvailable,
          s"bulkhead.enrichment.soap.mode = virtual needs JDK 21+, this is JDK ${Runtime.version()}")
        val virtual = Pools.executionContext(system, Pools.Virtual)
        // A virtual thread starts at once: no queue to bound.
        (BlockingSoapClient(soap, virtual, soap.requestTimeout, retryAfterMillis, system.classicSystem.scheduler, ExchangeMeter(registry)),
          None)
    SoapClients(GuardedSoapClient(MeteredSoapClient(client, registry), soap.breaker, retryAfterMillis), queue)
