package bulkhead.lab.cli

import bulkhead.lab.diagnose.{Diagnosis, Prediction, VerdictJson}
import bulkhead.lab.record.{RecordJson, RunRecord}
import bulkhead.lab.testkit.{Fixtures, Scratch}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.{Files, Path}
import scala.util.chaining.*

/** `lab gate` on run directories written from recorded runs: its exit codes, its lines and its JUnit report. */
class GateCommandSpec extends AnyFlatSpec with Matchers:
  private val pool4 = Fixtures.records("pool-4-c16-verify-jdk25")
  private val smaller = pool4.find(_.info.name == "pool-4").get
  private val larger = pool4.find(_.info.name == "pool-4-verify").get.pipe(r => r.copy(info = r.info.copy(name = "pool-4")))


  /** A run directory as `lab run` writes one: `<case>/result.json`, here with every round in its own directory. */
  private def runDir(records: RunRecord*): Path =
    val dir = Scratch.dir("gate-run")
    records.zipWithIndex.foreach((r, i) => RecordJson.write(r, dir.resolve(r.info.name).resolve(s"round-${i + 1}")))
    dir

  "lab gate" should "exit 1 on a pool made smaller, with a JUnit report beside the new run" in {
    val (before, after) = (runDir(larger), runDir(smaller))
    GateCommand.main(Seq("--baseline", before.toString, after.toString)) shouldBe 1
    val xml = Files.readString(after.resolve("gate.xml"))
    xml should include("""<testsuite name="bulkhead lab gate" tests="3" failures="2"""")
    xml should include("<failure message=\"fell: 38.2 req/s")
  }

  it should "exit 0 on a re-run of the same setting, and write the report where --junit says" in {
    val hello = Fixtures.records("bench-hello").filter(_.info.target == "bulkhead")
    val report = Scratch.dir("gate-ci").resolve("reports/gate.xml")
    val lines = Seq.newBuilder[String]
    val result = GateCommand.run(Some(runDir(hello.take(2)*)), runDir(hello.last), report, 0.05, lines += _)
    result.map(_.passed) shouldBe Right(true)
    lines.result().take(3).map(_.take(30)) shouldBe Seq("hello-c100  capping resource  pass",
      "hello-c100  cap               pass", "hello-c100  cpu per request   pass").map(_.take(30))
    lines.result()(3) shouldBe "gate: pass, 0 of 3 checks failed on 1 case (noise floor 5 %)"
    Files.readString(report) should include("""failures="0"""")
  }

  it should "exit 2 on bad input, naming the directory that has no result.json or is missing" in {
    val empty = Scratch.dir("gate-empty")
    val some = runDir(smaller)
    GateCommand.main(Seq("--baseline", empty.toString, some.toString)) shouldBe 2
    GateCommand.main(Seq("--baseline", some.resolve("nothing").toString, some.toString)) shouldBe 2
    GateCommand.main(Seq(some.toString)) shouldBe 2
    val noResult = GateCommand.run(Some(empty), some, some.resolve("gate.xml"), 0.05, _ => ())
    noResult.left.toOption.get should (include(empty.toString) and include("no result.json") and startWith("baseline: "))
    GateCommand.run(Some(some), some.resolve("gone"), some.resolve("gate.xml"), 0.05, _ => ()).left.toOption.get shouldBe
      s"new run: no such directory: ${some.resolve("gone")}"
    Files.exists(some.resolve("gate.xml")) shouldBe false
  }

  it should "exit 2 when no case is in both runs" in {
    val other = Fixtures.records("accuracy-quiet").take(1)
    val err = GateCommand.run(Some(runDir(smaller)), runDir(other*), Path.of("/nonexistent/gate.xml"), 0.05, _ => ())
    err.left.toOption.get should startWith("no case in both runs")
  }

  /** A run after a fix, written as `lab diagnose --expect` writes it: its verdict beside what `before` predicted. */
  private def expected(before: RunRecord, after: RunRecord): Path =
    val (was, dir) = (Scratch.dir("gate-before"), Scratch.dir("gate-after"))
    RecordJson.write(before, was)
    VerdictJson.write(VerdictJson.of(before), was)
    val prediction = Prediction.read(was).fold(e => fail(e), identity)
    RecordJson.write(after, dir)
    VerdictJson.write(VerdictJson.of(after, Some(prediction)), dir)
    dir

  it should "check a run after a fix against its prediction without a baseline: met, then missed" in {
    // pool-4 predicted its fix, a pool of 16, at the next cap; pool-4-verify is the re-run with that pool.
    val met = expected(smaller, larger)
    val lines = Seq.newBuilder[String]
    GateCommand.run(None, met, met.resolve("gate.xml"), 0.05, lines += _).map(_.passed) shouldBe Right(true)
    lines.result().head should fullyMatch regex "pool-4 +prediction +pass .*"
    lines.result().head should include(f"predicted ${Diagnosis(smaller).next.get.perSecond}%.1f req/s")
    // The pool made smaller again after the same prediction: far below it.
    val missed = expected(smaller, smaller)
    GateCommand.main(Seq(missed.toString)) shouldBe 1
    Files.readString(missed.resolve("gate.xml")) should include("<failure message=\"missed: predicted")
  }

  it should "exit 2 without a baseline when the new run holds no prediction" in {
    val plain = runDir(smaller)
    GateCommand.run(None, plain, plain.resolve("gate.xml"), 0.05, _ => ()).left.toOption.get should
      include("holds no prediction to check")
  }
