package bulkhead.lab.diagnose

import bulkhead.lab.model.{FixKind, Resource}
import bulkhead.lab.record.RecordJson
import bulkhead.lab.testkit.{Fixtures, Scratch}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.Files

/**
 * `verdict.json` of recorded runs: bulkhead's blocking pool of 4 at 16 clients (pool-4) and its re-run with the pool
 * its fix named (pool-4-verify), written as data and read back.
 */
class VerdictJsonSpec extends AnyFlatSpec with Matchers:
  private val runs = Fixtures.records("pool-4-c16-verify-jdk25")
  private val pool4 = runs.find(_.info.name == "pool-4").get
  private val verify = runs.find(_.info.name == "pool-4-verify").get

  "verdict.json" should "name what caps with its size, occupancy, hold and cap, the fix to apply and what caps next" in {
    val dir = VerdictJson.write(VerdictJson.of(pool4), Scratch.dir("verdict")).getParent
    val text = Files.readString(dir.resolve(VerdictJson.FileName))
    val file = VerdictJson.read(dir).fold(e => fail(e), identity)
    file.schema shouldBe VerdictJson.Schema
    file.name shouldBe "pool blocking-pool"
    val cap = file.verdict.cap
    cap.resource shouldBe Resource.Pool
    cap.size shouldBe Some(4.0)
    cap.occupancy.get should (be > 3.5 and be <= 4.0)
    cap.hold.get shouldBe (cap.occupancy.get / cap.perSecond / 4 * cap.size.get +- 1e-9)
    file.verdict.fix.map(f => (f.kind, f.setting, f.value)) shouldBe Some((FixKind.PoolSize,
      Some("--blocking-pool-size"), Some(16.0)))
    file.verdict.next.map(_.resource) shouldBe Diagnosis(pool4).next.map(_.resource)
    file.line shouldBe Diagnosis(pool4).line("pool-4")
    text should include("\"resource\": \"pool\"")
    text should include("\"kind\": \"pool-size\"")
  }

  it should "hold the earlier prediction beside the measurement after the fix" in {
    val before = Scratch.dir("verdict-before")
    VerdictJson.write(VerdictJson.of(pool4), before)
    val prediction = Prediction.read(before).fold(e => fail(e), identity)
    prediction.perSecond shouldBe Diagnosis(pool4).next.get.perSecond
    val after = VerdictJson.of(verify, Some(prediction))
    val e = after.expectation.get
    // Measured as the re-run's own verdict measures it: between its samples, not over the whole run with its edges.
    val measured = Diagnosis(verify).measured
    measured should not be verify.throughput
    e.measured shouldBe measured
    e.ratio shouldBe (measured / prediction.perSecond +- 1e-9)
    e.line should startWith(f"predicted ${prediction.perSecond}%.1f req/s (then: ${prediction.caps}), measured")
    val dir = VerdictJson.write(after, Scratch.dir("verdict-after")).getParent
    VerdictJson.read(dir).map(_.expectation) shouldBe Right(Some(e))
  }

  it should "take the prediction from result.json where a run has no verdict.json" in {
    val dir = Scratch.dir("verdict-record-only")
    RecordJson.write(pool4, dir)
    Prediction.read(dir).map(_.perSecond) shouldBe Right(Diagnosis(pool4).next.get.perSecond)
    Prediction.read(dir.resolve("none")).left.toOption.get should include("no verdict.json")
  }

  it should "write a figure the run could not measure as null, and refuse another schema" in {
    val dir = Scratch.dir("verdict-nan")
    val file = VerdictJson.of(pool4)
    VerdictJson.write(file.copy(verdict = file.verdict.copy(measured = Double.NaN)), dir)
    Files.readString(dir.resolve(VerdictJson.FileName)) should include("\"measured\": null")
    VerdictJson.read(dir).map(_.verdict.measured.isNaN) shouldBe Right(true)
    VerdictJson.write(file.copy(schema = "bulkhead-verdict/0"), dir)
    VerdictJson.read(dir).left.toOption.get should include("schema bulkhead-verdict/0")
  }
