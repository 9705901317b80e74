package bulkhead.lab.model

import bulkhead.lab.process.{Children, Stack}
import bulkhead.lab.testkit.{Fixtures, Scratch}
import org.scalatest.BeforeAndAfterAll
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow


/**
 * Every metric the diagnosis reads, read from the real service's /metrics after a real enrichment call: a name that
 * drifts (a unit Prometheus appends, a renamed meter) would leave the diagnosis blind to that resource.
 */
@Slow
class MetricsReadingSpec extends AnyFlatSpec with Matchers with BeforeAndAfterAll:
  private val stack = Stack(Fixtures.launch, Scratch.dir("lab-metrics"))
  // One Redis and one stub for the spec: each SOAP mode is a service of its own, started against them in turn.
  private lazy val redis = stack.redis()
  private lazy val stub = stack.stub(Seq("--latency", "fixed:20"))
  override def afterAll(): Unit = Children.stopAll()

  private def readAfterOneCall(mode: String, extra: Seq[String]): MetricsReading =
    val service = stack.service(Seq("--redis-uri", s"redis://127.0.0.1:${redis.port}", "--soap-endpoint",
      stub.url("/soap"), "--soap-mode", mode) ++ extra, heap = Stack.ServeHeap)
    try
      Stack.get(service.url("/customers/7")).fold(e => fail(s"/customers/7: $e"), identity)
      MetricsReading.parse(Stack.get(service.url("/metrics")).fold(e => fail(s"/metrics: $e"), identity))
    finally service.child.stop()

  /** One service for the readings of the non-blocking client, the server and the faults suite. */
  private lazy val nonBlocking = readAfterOneCall("non-blocking", Seq("--set",
    "bulkhead.enrichment.soap.max-connections=4", "--max-connections", "300"))

  "The service's /metrics" should "give the diagnosis every reading of the non-blocking client and the server" in {
    val m = nonBlocking
    m.soapConnectionsMax shouldBe Some(4.0)
    m.connectionsMax shouldBe Some(300.0)
    m.connectionsOpen.get should be >= 0.0
    m.soapInFlight shouldBe Some(0.0)
    m.soapCalls.get should be >= 1.0
    m.soapAnswered.get should be >= 1.0
    m.soapSeconds.get should be > 0.0
    m.answeredByClass.getOrElse("2xx", 0.0) should be >= 1.0
    m.latencyBuckets should not be empty
    m.pools.map(_.label) should contain("default-dispatcher")
    m.pool("default-dispatcher").flatMap(_.max).get should be > 0.0
  }

  it should "give the blocking client's work queue and its exchanges, the call's time without the queue" in {
    val m = readAfterOneCall("blocking", Nil)
    m.pool("work-queue").flatMap(_.completed).get should be >= 1.0
    m.pool("work-queue").flatMap(_.max).get should be > 0.0
    m.soapExchanges.get should be >= 1.0
    m.soapExchangeSeconds.get should (be > 0.0 and be <= m.soapSeconds.get)
  }

  it should "give the faults suite the breaker, its openings, the enrichments in flight, degraded answers and heap" in {
    val m = nonBlocking
    (m.circuitState, m.circuitOpenings, m.enrichmentInFlight) shouldBe (Some(0.0), Some(0.0), Some(0.0))
    m.loyaltyUnavailable.get should be >= 0.0
    m.heapUsedMb.get should (be > 1.0 and be < 256.0)
  }

  "MetricsReading" should "sum the heap's pools and none of the rest of the JVM's memory (a recorded scrape)" in {
    val m = MetricsReading.parse(Fixtures.text("cluster/metrics-front-joined.txt"))
    m.heapUsedBytes shouldBe Some(4194304.0 + 1.7555768e7 + 5145168.0)
    (m.circuitState, m.enrichmentInFlight, m.loyaltyUnavailable) shouldBe (Some(0.0), Some(0.0), Some(0.0))
    // Recorded before the service counted the breaker's openings: absent, not zero.
    m.circuitOpenings shouldBe None
  }
