package bulkhead.lab.faults

import bulkhead.lab.diagnose.FaultsVerdict
import bulkhead.lab.process.Children
import bulkhead.lab.record.RecordJson
import bulkhead.lab.report.{Environment, SuiteReport}
import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.Files

/**
 * The faults suite in its short form, end to end: real redis-server, the real stub and the service in their own JVMs
 * with the settings `./bulkhead serve` ships, the lab's closed-loop users over loopback. Every fault in non-blocking
 * mode, the thread-holding ones in blocking and virtual mode, the overload ramp and the undersized pool in every
 * mode must pass every check, and so must each service's suite-wide thread and heap checks; every run is a run record the report reads back.
 */
class FaultSuiteSpec extends AnyFlatSpec with Matchers:
  "The faults suite (short)" should "keep the service correct under every fault and under overload" in {
    val dir = Files.createTempDirectory("lab-faults")
    val run =
      try FaultSuite.run(FaultSuiteSettings.Short, Fixtures.launch, dir, println)
      finally Children.stopAll()
    val report = SuiteReport("FaultSuiteSpec", "FaultSuiteSpec", Environment("test", 2, 1, "-", "-", "-", "-", Nil),
      run.records, run.failures)
    val file = report.write(dir)
    val faults = report.faults
    withClue(s"report: $file\n${faults.matrix}\n${faults.rampTables}\n${faults.undersizedTable}\n") {
      run.failures shouldBe empty
      val v = faults.verdict
      v.runs.map(c => c.record.info.name) shouldBe FaultSuiteSettings.Short.runs.flatMap((m, cs) =>
        cs.map(c => s"${m.mode}-${c.name}"))
      v.runs.map(_.record.fault.get.mode).distinct shouldBe FaultSuiteSettings.Modes
      v.runs.count(_.record.fault.get.mode == "non-blocking") shouldBe FaultCase.all.size
      v.runs.flatMap(c => c.checks.filterNot(_.passed).map(x => s"${c.record.info.name}: ${x.name}: ${x.detail}"))
        .shouldBe(empty)
      v.suites.map(_._1) shouldBe FaultSuiteSettings.Modes
      v.suites.flatMap(_._2).filterNot(_.passed) shouldBe empty
      v.ramps.flatMap(_.checks).filterNot(_.passed) shouldBe empty
      v.ramps.flatMap(_.record.overload.get.steps.map(_.factor)) shouldBe OverloadDriver.Factors
      v.undersized.map(_.record.goodput.get.mode).sorted shouldBe FaultSuiteSettings.Modes.sorted
      v.undersized.flatMap(c => c.checks.filterNot(_.passed).map(x => s"${c.record.info.name}: ${x.name}: ${x.detail}"))
        .shouldBe(empty)
      // Every run sampled as a scenario is (thread dumps, /metrics each second), and read back with the same verdict.
      run.records.foreach(r => r.samples.count(_.pools.nonEmpty) should be > r.samples.size / 2)
      FaultsVerdict.of(RecordJson.readAll(dir).fold(e => fail(e), identity)).passed shouldBe true
    }
  }
