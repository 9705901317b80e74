package bulkhead.lab.faults

import bulkhead.lab.process.Children
import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.Files

/**
 * The faults suite in its short form, end to end: real redis-server, the real stub and the service in their own JVMs
 * with the settings `./bulkhead serve` ships, the lab's closed-loop users over loopback. Every fault in non-blocking
 * mode, the thread-holding ones in blocking and virtual mode, and the overload ramp must pass every check, and so
 * must each service's suite-wide thread and heap checks.
 */
class FaultSuiteSpec extends AnyFlatSpec with Matchers:
  "The faults suite (short)" should "keep the service correct under every fault and under overload" in {
    val work = Files.createTempDirectory("lab-faults")
    val report =
      try FaultSuite.run(FaultSuiteSettings.Short, Fixtures.launch, work, "FaultSuiteSpec", println)
      finally Children.stopAll()
    val file = report.write(work.resolve("report"))
    withClue(s"report: $file\n${report.matrix}\n${report.rampTable}\n") {
      report.failures shouldBe empty
      report.outcomes.map(o => s"${o.mode} ${o.fault.name}") shouldBe FaultSuiteSettings.Short.runs.flatMap((m, cs) =>
        cs.map(c => s"${m.mode} ${c.name}"))
      report.outcomes.map(_.mode).distinct shouldBe FaultSuiteSettings.Modes
      report.outcomes.count(_.mode == "non-blocking") shouldBe FaultCase.all.size
      report.outcomes.flatMap(o => o.checks.filterNot(_.passed).map(c =>
        s"${o.mode} ${o.fault.name}: ${c.name}: ${c.detail}")).shouldBe(empty)
      report.suiteChecks.map(_._1).distinct shouldBe FaultSuiteSettings.Modes
      report.suiteChecks.filterNot(_._2.passed) shouldBe empty
      report.rampChecks.filterNot(_.passed) shouldBe empty
      report.ramp.map(_.factor) shouldBe OverloadRamp.Factors
    }
  }
