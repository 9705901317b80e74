package bulkhead.service.soap

import io.micrometer.core.instrument.{MeterRegistry, Timer}

import java.util.concurrent.TimeUnit

/**
 * The time a SOAP call holds its thread, from sending the request to the answer, without the wait for a thread in
 * front of it: the third party's own latency as the service sees it. A call's whole time (`soap.client.calls`)
 * includes that wait, so under a full work queue it reads as the queue's latency, not the third party's.
 */
trait ExchangeMeter:
  def record(nanos: Long): Unit

object ExchangeMeter:
  val Ignored: ExchangeMeter = _ => ()

  def apply(registry: MeterRegistry): ExchangeMeter =
    val timer = Timer.builder("soap.client.exchanges")
      .description("time a SOAP call held its thread, from sending the request to the answer (no queue in front)")
      .register(registry)
    nanos => timer.record(nanos, TimeUnit.NANOSECONDS)
