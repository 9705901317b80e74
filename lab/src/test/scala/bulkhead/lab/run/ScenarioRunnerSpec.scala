package bulkhead.lab.run

import bulkhead.lab.diagnose.Diagnosis
import bulkhead.lab.record.RecordJson
import bulkhead.lab.process.Children
import bulkhead.lab.scenario.Scenario
import bulkhead.lab.testkit.{Fixtures, Scratch}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.nio.file.Path

/** The lab end to end: the real service in its own JVM, real wrk, real thread dumps. */
@Slow
class ScenarioRunnerSpec extends AnyFlatSpec with Matchers:

  "The lab" should "diagnose a pool of 4 threads under 16 connections as capped at 40 req/s from what it measured" in {
    val scenario = Scenario.load(Path.of("scenarios/ci/pool-4.conf").toAbsolutePath).toOption.get
    val dir = Scratch.dir("lab-e2e")
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

  it should "start a 2-node cluster, load its front and sample each node's own work queue" in {
    val scenario = Scenario.load(Path.of("scenarios/ci/cluster-2-nodes.conf").toAbsolutePath).toOption.get
    val dir = Scratch.dir("lab-cluster")
    val record = ScenarioRunner(Fixtures.launch, dir, _ => ()).run(scenario).fold(e => fail(e), identity)
    try
      record.info.nodes should have size 2
      record.otherNodes.map(_.node) shouldBe record.info.nodes.tail
      record.load.answers.byClass.keySet shouldBe Set("2xx")
      record.load.answers.unanswered shouldBe 0
      // Every node saw both members and was sampled while its own work queue held lookups: the front's router sent
      // some of them to the second node, whose sampler (its own pid, its own /metrics) saw them.
      for n <- record.measuredByNode do
        withClue(s"${n.node}: ") {
          n.samples.flatMap(_.metrics.flatMap(_.clusterMembersUp)).distinct shouldBe Seq(2.0)
          n.samples.flatMap(_.pools.find(_.pool.endsWith("work-queue")).map(_.busy)).max should be > 0
          val completed = n.samples.flatMap(_.metrics.flatMap(_.pool("work-queue").flatMap(_.completed)))
          completed.last should be > completed.head
        }
      // Written as data, and read back with its nodes.
      val back = RecordJson.read(dir.resolve(scenario.name).resolve(RecordJson.FileName)).fold(e => fail(e), identity)
      back.otherNodes shouldBe record.otherNodes
      Diagnosis(back) shouldBe Diagnosis(record)
    finally Children.stopAll()
  }
