package bulkhead.lab.diagnose

import bulkhead.lab.load.WrkParser
import bulkhead.lab.sample.{PoolSample, ThreadDump}
import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/** Diagnoses on recorded runs: the thread dumps and wrk reports are real; one observation per kind of cap. */
class DiagnosisSpec extends AnyFlatSpec with Matchers:
  private val pool4 = PoolSample.of(ThreadDump.parse(Fixtures.text("threaddump-pool4-jdk25.txt")))
  private val wrk = WrkParser.parse(Fixtures.text("wrk-pool4-c16-jdk25.txt")).toOption.get
  private val quiet = Observation(requestsPerSecond = wrk.requestsPerSecond,
    meanLatencySeconds = wrk.latencyAvgMs / 1000, clients = wrk.connections, workSeconds = 0.1,
    samples = Seq(pool4, pool4, pool4), poolSizes = Map("blocking-pool" -> 4, "default-dispatcher" -> 8),
    serviceCores = 0.2, machineBusy = 0.3, cores = 2, openConnections = Some(17), maxConnections = Some(16384),
    connectErrors = 0, thirdPartySeconds = None)

  "Diagnosis" should "name a saturated pool and its Little's-law cap (4 threads / 0.1 s = 40 req/s)" in {
    val d = Diagnosis(quiet)
    d.cap shouldBe "pool blocking-pool"
    d.predicted shouldBe 40.0
    d.ratio shouldBe (1.0 +- 0.1)
    d.explanation should include("4 of 4 threads busy in java.lang.Thread.sleep")
    d.explanation should include("16 clients need 160")
  }

  it should "name the default dispatcher when /work/default blocks it (JDK 17 dump)" in {
    val blocked = PoolSample.of(ThreadDump.parse(Fixtures.text("threaddump-default2-jdk17.txt")))
    val d = Diagnosis(quiet.copy(samples = Seq(blocked), poolSizes = Map("default-dispatcher" -> 2),
      requestsPerSecond = 19.5, meanLatencySeconds = 0.8))
    (d.cap, d.predicted) shouldBe ("pool default-dispatcher", 20.0)
  }

  it should "name seed 001's blocking dispatcher on the Akka HTTP peer, sized from its thread samples (no /metrics)" in {
    val akka = PoolSample.of(ThreadDump.parse(Fixtures.text("threaddump-akka-http-pool200-jdk17.txt")))
    val run = WrkParser.parse(Fixtures.text("wrk-akka-http-pool200-c400-jdk17.txt")).toOption.get
    val sizes = bulkhead.lab.run.ScenarioRunner.poolSizesFromSamples(Seq(akka))
    sizes.get("akka-http-peer-my-blocking-dispatcher") shouldBe Some(200)
    val d = Diagnosis(quiet.copy(samples = Seq(akka), poolSizes = sizes, requestsPerSecond = run.requestsPerSecond,
      meanLatencySeconds = run.latencyAvgMs / 1000, clients = run.connections))
    (d.cap, d.predicted) shouldBe ("pool akka-http-peer-my-blocking-dispatcher", 2000.0)
  }

  it should "name max-connections when more clients than it allows hold every connection (seed 003)" in {
    val d = Diagnosis(quiet.copy(samples = Nil, clients = 1200, openConnections = Some(1024),
      maxConnections = Some(1024), connectErrors = 185, requestsPerSecond = 46619.78, meanLatencySeconds = 0.02042))
    d.cap shouldBe "max-connections"
    d.explanation should include("1024 of 1200 clients served at once")
  }

  it should "name the third party's latency when clients wait on it (seed 004, 20 clients)" in {
    val d = Diagnosis(quiet.copy(samples = Nil, clients = 20, requestsPerSecond = 19.7, meanLatencySeconds = 1.017,
      thirdPartySeconds = Some(1.0)))
    (d.cap, d.predicted) shouldBe ("third party's latency", 20.0)
  }

  it should "name the CPU when no resource is saturated and the machine is busy (seed 002)" in {
    val d = Diagnosis(quiet.copy(samples = Nil, clients = 100, requestsPerSecond = 41535.58,
      meanLatencySeconds = 0.00388, machineBusy = 0.97))
    d.cap shouldBe "CPU"
  }

  it should "count threads busy computing as the CPU, not as a pool that blocks (real dump under /hello load)" in {
    val hello = PoolSample.of(ThreadDump.parse(Fixtures.text("threaddump-hello-cpu-jdk25.txt")))
    val default = hello.find(_.pool.endsWith("default-dispatcher")).get
    default.blocked shouldBe 0
    val d = Diagnosis(quiet.copy(samples = Seq(hello), poolSizes = Map("default-dispatcher" -> default.threads),
      clients = 100, requestsPerSecond = 49478.36, meanLatencySeconds = 0.002, machineBusy = 0.98))
    d.cap shouldBe "CPU"
  }

  it should "fall back to the closed loop when nothing is saturated" in {
    val d = Diagnosis(quiet.copy(samples = Nil, clients = 16, requestsPerSecond = 150, meanLatencySeconds = 0.105))
    d.cap shouldBe "the clients (closed loop)"
    d.predicted shouldBe (160.0 +- 0.01) // 16 clients / 0.1 s of work
    Diagnosis(quiet.copy(samples = Nil, clients = 16, requestsPerSecond = 150, meanLatencySeconds = 0.105,
      workSeconds = 0)).predicted shouldBe (16 / 0.105 +- 0.01)
  }
