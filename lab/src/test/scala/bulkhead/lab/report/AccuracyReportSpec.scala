package bulkhead.lab.report

import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/** The accuracy score on recorded real runs of the diagnosis cases. */
class AccuracyReportSpec extends AnyFlatSpec with Matchers:
  private val report = AccuracyReport(Fixtures.records("accuracy-quiet"))

  "The accuracy score" should "count each case once, its verify apart, and the resource named right" in {
    report.score should startWith("diagnosis: resource 3/3,")
    report.score should endWith("verify within 10 % 2/2")
  }

  it should "leave out of the cap's score a run whose requests mostly failed, and the clients' own cap" in {
    // Only the host-pool case has a cap from a resource's size: errors are never throughput, the closed loop is the
    // clients'.
    report.score should include("cap within 10 % 1/1")
  }

  it should "put each case's expected and named resource, and its verify, in its table" in {
    val errorsRow = report.table.linesIterator.find(_.startsWith("| errors |")).get
    errorsRow should include("| errors | errors | yes |")
    errorsRow should include("(1.08)") // the re-run measured between its samples
  }
