package bulkhead.lab.faults

import bulkhead.lab.checks.RunChecks
import bulkhead.lab.process.{Children, Environment}
import bulkhead.lab.record.RecordJson
import bulkhead.lab.report.SuiteReport
import bulkhead.lab.testkit.{Fixtures, Scratch}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import scala.concurrent.duration.*

/**
 * The faults suite's pipeline end to end on its short settings: real redis-server, the real stub and the service in
 * their own JVMs with the settings `./bulkhead serve` ships, the lab's closed-loop and hostile clients over loopback.
 * One fault of each kind runs (the plan below), then the overload ramp and the undersized pool in every SOAP mode; each
 * must pass every check, as must the service's suite-wide thread and heap checks, and every run is a run record the
 * report reads back. The whole matrix is `./bulkhead lab faults` (~7.7 min): the service's answer to each fault one by
 * one is held by the service's own specs (EnrichmentPipelineSpec, GoodputSpec, LettuceProfileStoresSpec,
 * RequestHeadLimitSpec, ClientWarningLogSpec), and each verdict by its recorded runs (FaultChecksSpec,
 * HungChecksSpec, HostileChecksSpec, GoodputChecksSpec). The undersized pool here is the one place the service's cap
 * at a steady third party is held end to end in each SOAP mode (GoodputSpec holds it while the third party slows down,
 * on the non-blocking client): do not drop a mode from it, nor the step from the plan.
 */
@Slow
class FaultSuiteSpec extends AnyFlatSpec with Matchers:
  /**
   * One fault of each kind, on the non-blocking client: the third party past its timeout (the breaker opens and
   * closes), every connection slot held while new clients arrive, Redis killed (answers degraded), the third party hung
   * (stale calls, slots held), hostile clients (the service watched from outside), and the two steps.
   */
  private val plan = Set("latency-x10", "connection-exhaustion", "redis-killed", "stub-hung", "large-heads",
    UndersizedPool.Name)
  /**
   * The short form, with the two steps' measured windows shortened further: what they check is behaviour, not a figure.
   * The ramp measures 1 s of each factor after its 1 s transition: a hundred answers or more of the 500 ms third party
   * a step, and above the limit 50 to 200 503s, whose p50 was 1-2 ms against the check's 50 ms. The undersized
   * pool counts 8 s after its 8 s warm-up: 64 answers at the cap, each counted by the share of its call inside the
   * window, so that no wave is lost at its edges.
   */
  private val settings = FaultSuiteSettings.Short.copy(only = plan, rampStep = 2.seconds,
    undersized = FaultSuiteSettings.Short.undersized.copy(window = 8.seconds))

  "The faults suite (short)" should "keep the service correct under each kind of fault and under overload" in {
    val dir = Scratch.dir("lab-faults")
    val run =
      try FaultSuite.run(settings, Fixtures.launch, dir, println)
      finally Children.stopAll()
    val report = SuiteReport("FaultSuiteSpec", "FaultSuiteSpec", Environment("test", 2, 1, "-", "-", "-", "-", Nil),
      run.records, run.failures)
    val file = report.write(dir)
    val faults = report.faults
    withClue(s"report: $file\n${faults.matrix}\n${faults.rampTables}\n${faults.undersizedTable}\n") {
      run.failures shouldBe empty
      val v = faults.checks
      v.runs.map(c => c.record.info.name) shouldBe
        FaultCase.all.map(_.name).filter(plan).map(name => s"non-blocking-$name")
      v.runs.flatMap(c => c.checks.filterNot(_.passed).map(x => s"${c.record.info.name}: ${x.name}: ${x.detail}"))
        .shouldBe(empty)
      // The kinds' own records: the hung dependency's readings, the hostile clients' answers and the watch.
      v.runs.find(_.record.info.name.endsWith("stub-hung")).flatMap(_.record.fault.get.hung) shouldBe defined
      v.runs.find(_.record.info.name.endsWith("large-heads")).get.record.fault.get.hostile should not be empty
      all(v.runs.map(_.record.fault.get.watch)) shouldBe defined
      v.suites.map(_._1) shouldBe Seq("non-blocking")
      v.suites.flatMap(_._2).filterNot(_.passed) shouldBe empty
      v.ramps.flatMap(_.checks).filterNot(_.passed) shouldBe empty
      v.ramps.flatMap(_.record.overload.get.steps.map(_.factor)) shouldBe OverloadDriver.Factors
      v.undersized.map(_.record.goodput.get.mode).sorted shouldBe FaultSuiteSettings.Modes.sorted
      v.undersized.flatMap(c => c.checks.filterNot(_.passed).map(x => s"${c.record.info.name}: ${x.name}: ${x.detail}"))
        .shouldBe(empty)
      // Every run sampled as a scenario is (thread dumps, /metrics each second), and read back with the same verdict.
      run.records.foreach(r => r.samples.count(_.pools.nonEmpty) should be > r.samples.size / 2)
      RunChecks.of(RecordJson.readAll(dir).fold(e => fail(e), identity)).passed shouldBe true
    }
  }
