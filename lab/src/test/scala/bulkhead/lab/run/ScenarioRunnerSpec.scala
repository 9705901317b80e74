package bulkhead.lab.run

import bulkhead.lab.diagnose.Diagnosis
import bulkhead.lab.load.RampDriver
import bulkhead.lab.record.RecordJson
import bulkhead.lab.process.{Children, Stack}
import bulkhead.lab.scenario.{Load, Scenario}
import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.{Files, Path}
import scala.concurrent.duration.*

/** The lab end to end: the real service in its own JVM, real wrk, real JMeter, real thread dumps. */
class ScenarioRunnerSpec extends AnyFlatSpec with Matchers:

  "The lab" should "diagnose a pool of 4 threads under 16 connections as capped at 40 req/s from what it measured" in {
    val scenario = Scenario.load(Path.of("scenarios/ci/pool-4.conf").toAbsolutePath).toOption.get
    val dir = Files.createTempDirectory("lab-e2e")
    val runner = ScenarioRunner(Fixtures.launch, dir, _ => ())
    val record = runner.run(scenario).fold(e => fail(e), identity)
    val verdict = Diagnosis(record)
    verdict.name shouldBe "pool blocking-pool"
    // The scenario declares no work time: 40 comes from the pool's busy threads and its executor's counter.
    record.info.declaredWorkSeconds shouldBe None
    verdict.predicted shouldBe (40.0 +- 4.0)
    verdict.measured shouldBe (40.0 +- 4.0)
    verdict.fix.map(_.flags) shouldBe Some(Seq("--blocking-pool-size", "16"))
    record.samples.flatMap(_.pools.find(_.pool.endsWith("blocking-pool")).map(_.busy)).max shouldBe 4
    // Written as data, and the diagnosis of the file read back is the same.
    val back = RecordJson.read(dir.resolve(scenario.name).resolve(RecordJson.FileName)).fold(e => fail(e), identity)
    Diagnosis(back) shouldBe verdict
    Children.stopAll()
  }

  "The ramp driver" should "ramp JMeter's clients up in steps and record every second" in {
    val dir = Files.createTempDirectory("lab-ramp")
    val stack = Stack(Fixtures.launch, dir)
    val service = stack.service(Seq("--blocking-pool-size", "8"), heap = "-Xmx256m")
    try
      // Steps of 2 s: a whole second at 2 clients even when JMeter's first request is slow (a CI run lost its 1 s
      // step).
      val result = RampDriver.run(Load.Ramp(clients = 4, rampUp = 4.seconds, rampSteps = 2, hold = 3.seconds),
        service.url("/work/pool?ms=50"), dir, summaryEverySeconds = 1)
      result.answers.byClass.keySet shouldBe Set("2xx")
      result.answers.unanswered shouldBe 0
      result.answers.answered should be > 0L
      val clients = result.seconds.map(_.clients)
      clients.max shouldBe 4
      val firstAtHalf = clients.indexOf(2)
      firstAtHalf should be >= 0
      firstAtHalf should be < clients.indexOf(4)
      result.latency.p50Ms should be >= 50.0
    finally service.child.stop()
  }
