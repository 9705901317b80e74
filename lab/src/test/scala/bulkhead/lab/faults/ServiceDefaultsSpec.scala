package bulkhead.lab.faults

import bulkhead.lab.testkit.Fixtures
import bulkhead.service.config.ServiceSettings
import com.typesafe.config.ConfigFactory
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

class ServiceDefaultsSpec extends AnyFlatSpec with Matchers:

  "ServiceDefaults" should "read from the service build the lab starts what the service's own settings reader reads" in {
    // The service's typed settings, read by its own reader from the reference.conf on the lab's test classpath: a key
    // the lab reads under another name or unit than the service does fails here.
    val service = ServiceSettings(ConfigFactory.defaultReference())
    val soap = service.enrichment.soap
    val d = ServiceDefaults.read(Fixtures.launch.serviceClasspath)
    d.maxConnections shouldBe service.server.maxConnections
    d.refusedConnections shouldBe service.server.refusedConnections
    d.maxInFlight shouldBe service.enrichment.maxInFlight
    d.soapTimeout shouldBe soap.requestTimeout
    d.breakerMaxFailures shouldBe soap.breaker.maxFailures
    d.breakerReset shouldBe soap.breaker.resetTimeout
    d.requestHeadTimeout shouldBe service.server.requestHeadTimeout
    d.idleTimeout shouldBe service.server.idleTimeout
    d.requestTimeout shouldBe service.server.requestTimeout
    d.maxHeadBytes shouldBe service.server.maxHeadBytes
    d.maxHeadBytesInProgress shouldBe service.server.maxHeadBytesInProgress
    d.workQueue should (startWith(s"${soap.workQueue.core}..${soap.workQueue.max} threads,")
      and include(s"at most ${soap.admission.maxWait.toMillis / 1000.0} s") and include(s"${soap.admission.queue} waiting"))
  }

  it should "say which settings a report's figures came from" in {
    val d = ServiceDefaults.of(ConfigFactory.parseString("""
      bulkhead.service.server { max-connections = 7, refused-connections = 3, request-head-timeout = 9s,
        idle-timeout = 60s, request-timeout = 30s, max-head-bytes = 16KiB,
        max-head-bytes-in-progress = 8MiB }
      bulkhead.enrichment { max-in-flight = 11, soap { request-timeout = 2500ms,
        circuit-breaker { max-failures = 4, reset-timeout = 1s }, work-queue { core = 1, max = 2 }, admission { queue = 5, max-wait = 1500ms } } }
    """))
    d.describe should (include("max-connections 7 (+3 answered 503)") and include("max-in-flight 11") and
      include("SOAP timeout 2.5 s") and include("max-head-bytes 16384 (8 MiB in progress in all)") and include("4 failures / reset 1.0 s") and include("1..2 threads, a call waits at most 1.5 s for a thread (admission, 5 waiting at most)"))
  }
