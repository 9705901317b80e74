package bulkhead.lab.bench

import bulkhead.lab.process.Children
import bulkhead.lab.record.{CpuPerRequest, RecordJson}
import bulkhead.lab.report.BenchRow
import bulkhead.lab.run.ScenarioRunner
import bulkhead.lab.scenario.Scenario
import bulkhead.lab.testkit.{Fixtures, Scratch}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.nio.file.Path
import scala.concurrent.duration.*

/** Rounds of a benchmark end to end: real servers, real wrk, records written and read back. */
@Slow
class BenchRoundsSpec extends AnyFlatSpec with Matchers:

  "BenchRounds" should "run every case on every server in each round, interleaved, and write each round's record" in {
    val file = Path.of("scenarios/ci/hello-side-by-side.conf").toAbsolutePath
    val scenario = BenchSuite.adjust(Scenario.load(file).fold(e => fail(e), identity), Some(1.second),
      Some(Duration.Zero), None)
    val out = Scratch.dir("lab-bench")
    try
      val written = BenchRounds(ScenarioRunner(Fixtures.launch, out, _ => ()), out, _ => ()).run(Seq(scenario), 2)
      val files = written.map(_.fold(e => fail(e), identity))
      files shouldBe Seq(1, 2).flatMap(round => scenario.targets.map(t =>
        BenchRounds.directory(out, scenario.name, t, round).resolve(RecordJson.FileName)))
      val records = files.map(f => RecordJson.read(f).fold(e => fail(e), identity))
      // A B, A B: each run started after the one before it.
      records.map(r => BenchRow.startedMillis(r)) shouldBe records.map(r => BenchRow.startedMillis(r)).sorted
      records.map(_.info.server) shouldBe Seq.fill(2)(scenario.targets.map(Some(_))).flatten
      records.foreach { r =>
        r.load.answers.answered should be > 0L
        CpuPerRequest.service(r).get should be > 0.0
      }
      BenchRow.of(records).map(_.records.size) shouldBe Seq(2, 2)
    finally Children.stopAll()
  }
