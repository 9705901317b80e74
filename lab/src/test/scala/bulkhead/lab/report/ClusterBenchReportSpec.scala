package bulkhead.lab.report

import bulkhead.lab.scenario.{Load, Scenario}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.{Files, Path}
import scala.concurrent.duration.*

/** The bounds `bench cluster` holds its cases to, from the scenario files themselves. */
class ClusterBenchReportSpec extends AnyFlatSpec with Matchers:
  private def bench(file: String) =
    Scenario.load(Path.of(s"scenarios/bench/cluster/$file").toAbsolutePath).fold(e => fail(e), identity)

  "ClusterBenchReport" should "bound 100 clients on 1 s of work by the nodes' work queues of 25 threads" in {
    val bounds = Seq("1-node.conf", "2-nodes.conf", "3-nodes.conf").map(f => ClusterBenchReport.bound(bench(f)))
    bounds.map(_.map(_.perSecond)) shouldBe Seq(Right(25.0), Right(50.0), Right(75.0))
    bounds(2).map(_.what) shouldBe Right("3 x work-queue: 75 threads / 1 s")
  }

  it should "bound by the clients when they are fewer than the threads" in {
    val five = bench("3-nodes.conf").copy(load = Load.Wrk(1, 5, 5.seconds, 5.seconds))
    ClusterBenchReport.bound(five).map(_.perSecond) shouldBe Right(5.0)
  }

  it should "refuse a case whose flags do not size the work queue, naming the key" in {
    val f = Files.createTempFile("case", ".conf")
    Files.writeString(f, "cluster.nodes = 2\nwork-seconds = 1.0\nservice.flags = [\"--soap-mode\", \"blocking\"]\n")
    val s = Scenario.load(f).fold(e => fail(e), identity)
    ClusterBenchReport.bound(s).left.toOption.get should include("bulkhead.enrichment.soap.work-queue.max=N")
  }
