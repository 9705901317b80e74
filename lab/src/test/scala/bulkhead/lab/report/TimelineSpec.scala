package bulkhead.lab.report

import bulkhead.lab.record.RecordJson
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.Path

/** The per-second series of a recorded real run: two independent sources of one run must tell the same story. */
class TimelineSpec extends AnyFlatSpec with Matchers:
  private val records = RecordJson.readAll(Path.of(getClass.getResource("/fixtures/records/pool-4-c16-verify-jdk25")
    .toURI)).fold(e => fail(e), identity)

  private def mean(points: Seq[(Double, Double)], from: Double, to: Double) =
    val in = points.filter((t, _) => t > from && t < to).map(_._2)
    in.sum / in.size

  "Timeline" should "count the same answers per second from the load generator and from the service's counters" in {
    records.foreach { r =>
      val t = Timeline(r)
      val byLoad = t.answers.find(_.label == "2xx (wrk)").get.points
      val byService = t.answers.find(_.label == "2xx (service /metrics)").get.points
      // Away from the edges, where a second is partly outside the load.
      mean(byService, 1, 9) shouldBe (mean(byLoad, 1, 9) +- mean(byLoad, 1, 9) * 0.1)
      mean(byLoad, 1, 9) shouldBe (r.throughput +- r.throughput * 0.15)
    }
  }

  it should "give the service's CPU in cores, never above the machine's" in {
    records.foreach { r =>
      val cpu = Timeline(r).cpu
      val service = cpu.find(_.label == "service").get.points
      service should not be empty
      service.foreach((_, cores) => cores should (be >= 0.0 and be <= r.info.cores.toDouble))
    }
  }

  it should "put every series on one axis from the load's start to its end" in {
    records.foreach { r =>
      val t = Timeline(r)
      val (from, to) = t.range
      val all = t.answers ++ t.concurrency ++ t.cpu
      all.flatMap(_.points.map(_._1)).foreach(x => x should (be >= from and be <= to))
      to should be >= r.measuredTo
    }
  }
