package bulkhead.lab.faults

import bulkhead.lab.testkit.Fixtures
import com.typesafe.config.ConfigFactory
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

class ServiceDefaultsSpec extends AnyFlatSpec with Matchers:

  "ServiceDefaults" should "read the shipped settings from the service build the lab starts" in {
    // The lab's tests have the same service build on their own classpath: both readings must agree.
    ServiceDefaults.read(Fixtures.launch.serviceClasspath) shouldBe ServiceDefaults.of(ConfigFactory.defaultReference())
  }

  it should "say which settings a report's figures came from" in {
    val d = ServiceDefaults.of(ConfigFactory.parseString("""
      bulkhead.service.server { max-connections = 7, refused-connections = 3, request-head-timeout = 9s,
        idle-timeout = 60s, request-timeout = 30s }
      bulkhead.enrichment { max-in-flight = 11, soap { request-timeout = 2500ms,
        circuit-breaker { max-failures = 4, reset-timeout = 1s }, work-queue { core = 1, max = 2, queue = 5, max-wait = 1500ms } } }
    """))
    d.describe should (include("max-connections 7 (+3 answered 503)") and include("max-in-flight 11") and
      include("SOAP timeout 2.5 s") and include("4 failures / reset 1.0 s") and include("1..2 threads, queue 5, a call waits at most 1.5 s for a thread"))
  }
