package bulkhead.lab.faults

import bulkhead.lab.model.MetricsReading
import bulkhead.lab.process.{Dependencies, RedisCommand, Stack}
import bulkhead.lab.record.DependencyReading

import scala.concurrent.duration.*

/**
 * Reads a [[DependencyReading]]: the stub's /metrics (calls with a deadline, stale ones), Redis's INFO commandstats
 * (HGETALLs run: the profile reads) and the service's /metrics (answers degraded, SOAP calls in flight and waiting,
 * requests in the pipeline). Each figure whose reading failed is None.
 */
object HungReadings:
  val StubCallsWithDeadline = "stub_calls_with_deadline_total"
  val StubStaleCalls = "stub_calls_stale_total"
  private val HgetallCalls = """cmdstat_hgetall:calls=(\d+)""".r.unanchored

  def read(deps: Dependencies, serviceMetrics: String): DependencyReading =
    val stub = deps.stub.flatMap(s => Stack.get(s.url("/metrics"), 5.seconds).toOption).map(MetricsReading.lines)
    def stubCounter(name: String) = stub.flatMap(_.find(_.name == name)).map(_.value.toLong)
    val redis = deps.redis.flatMap(r => RedisCommand.send(r.port, Seq("INFO", "commandstats")).toOption)
    val service = Stack.get(serviceMetrics, 5.seconds).toOption.map(MetricsReading.parse)
    DependencyReading(stubCounter(StubCallsWithDeadline), stubCounter(StubStaleCalls),
      redis.map {
        case HgetallCalls(n) => n.toLong
        case _ => 0L // no HGETALL run since Redis started
      },
      service.flatMap(_.loyaltyUnavailable), service.flatMap(_.soapInFlight), service.flatMap(_.soapWaiting),
      service.flatMap(_.enrichmentInFlight))
