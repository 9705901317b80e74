package bulkhead.service.soap

import bulkhead.service.config.{EnrichmentSettings, SocketTransport, SoapMode}
import bulkhead.service.dispatch.{Pools, SelectorThreads, WorkQueuePool}
import bulkhead.service.enrichment.{BreakerState, SoapClient}
import bulkhead.transport.{IoLoops, SelectorClientTransport}
import io.micrometer.core.instrument.{Gauge, MeterRegistry}
import org.apache.pekko.actor.typed.ActorSystem
import org.apache.pekko.http.scaladsl.ClientTransport

import java.util.concurrent.ThreadPoolExecutor

/**
 * The SOAP client the configuration asks for, behind admission and the circuit breaker, with the breaker (to publish
 * it), the pool it blocks on (if any) and the selector thread its connections are carried by (if any).
 */
final case class SoapClients(client: SoapClient, breaker: BreakerState, workQueue: Option[ThreadPoolExecutor],
    ioLoops: Option[IoLoops] = None):
  def close(): Unit =
    client.close()
    workQueue.foreach(_.shutdownNow())

object SoapClients:
  // A SOAP answer is a few hundred bytes; the client refuses answers above max-response-bytes anyway.
  private val ReadBufferBytes = 64 * 1024

  /**
   * The client of the configured mode, from the outside in: metered into `registry` (every call, waits and refusals
   * included), admitted (a slot, or a refusal at once), guarded by the breaker. Admission sits outside the breaker: a
   * call refused for want of a slot never reached the third party and is neither a failure nor a success to it (the
   * breaker counts a success as a reset of its failures, so 90 refusals a second would hide a failing third party).
   */
  def apply(settings: EnrichmentSettings, registry: MeterRegistry)(using system: ActorSystem[?]): SoapClients =
    val soap = settings.soap
    val retryAfterMillis = settings.retryAfter.toMillis
    val scheduler = system.classicSystem.scheduler
    // The non-blocking client's selector thread on the selector transport, stopped with the actor system.
    val loops = Option.when(soap.mode == SoapMode.NonBlocking && soap.transport == SocketTransport.Selector)(
      SelectorThreads.start(Pools.SoapIo, 1, ReadBufferBytes))
    // Its requests are strict, rendered whole: each is written the moment it comes, not gathered.
    val carrier = loops.fold(ClientTransport.TCP)(SelectorClientTransport(_, ReadBufferBytes, gatherWrites = false))
    val (client, queue, slotName): (SoapClient, Option[ThreadPoolExecutor], String) = soap.mode match
      case SoapMode.NonBlocking =>
        // No base unit: Prometheus would append it (soap_client_connections_max_connections).
        Gauge.builder("soap.client.connections.max", () => soap.maxConnections)
          .description("connections the SOAP client may open to the third party, one call on each at a time")
          .register(registry)
        val nonBlocking = NonBlockingSoapClient(soap, carrier)
        Gauge.builder("soap.client.connections.open", nonBlocking, _.openConnections.toDouble)
          .description("connections to the third party open now, idle or carrying a call (a call that reaches its " +
            "deadline closes its own)").register(registry)
        (nonBlocking, None, "connection")
      case SoapMode.Blocking =>
        val pool = WorkQueuePool(Pools.SoapWorkQueue, soap.workQueue)
        (BlockingSoapClient(soap, pool, retryAfterMillis, scheduler, ExchangeMeter(registry))(using
          system.executionContext), Some(pool),
          "work-queue thread")
      case SoapMode.Virtual =>
        require(Pools.virtualThreadsAvailable,
          s"bulkhead.enrichment.soap.mode = virtual needs JDK 21+, this is JDK ${Runtime.version()}")
        val virtual = Pools.executionContext(system, Pools.Virtual)
        // A virtual thread starts at once: admission's permits are what bound the calls.
        (BlockingSoapClient(soap, virtual, retryAfterMillis, scheduler, ExchangeMeter(registry))(using
          system.executionContext), None, "permit")
    val guarded = GuardedSoapClient(client, soap.breaker, retryAfterMillis)
    val admitted = AdmittedSoapClient(guarded, soap.slots, soap.admission.queue, soap.admission.maxWait, slotName,
      retryAfterMillis, scheduler)
    Gauge.builder("soap.client.waiting", admitted, _.waiting.toDouble).baseUnit("calls")
      .description("SOAP calls waiting for a slot (a connection, a work-queue thread, a permit); refused (503) after " +
        "bulkhead.enrichment.soap.admission.max-wait").register(registry)
    Gauge.builder("soap.client.slots", () => soap.slots)
      .description("SOAP calls the client runs at once (connections, work-queue threads or virtual-thread permits)")
      .register(registry)
    SoapClients(MeteredSoapClient(admitted, registry), guarded, queue, loops)
