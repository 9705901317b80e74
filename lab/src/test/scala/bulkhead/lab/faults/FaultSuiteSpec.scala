package bulkhead.lab.faults

import bulkhead.lab.process.Children
import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.Files

/**
 * The faults suite in its short form, end to end: real redis-server, the real stub and the service in their own JVMs,
 * the lab's closed-loop users over loopback. Every fault of the matrix and the overload ramp must pass every check.
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
      report.outcomes.map(_.fault.name) shouldBe FaultCase.all.map(_.name)
      report.outcomes.flatMap(o => o.checks.filterNot(_.passed).map(c => s"${o.fault.name}: ${c.name}: ${c.detail}"))
        .shouldBe(empty)
      report.rampChecks.filterNot(_.passed) shouldBe empty
      report.ramp.map(_.factor) shouldBe OverloadRamp.Factors
    }
  }
