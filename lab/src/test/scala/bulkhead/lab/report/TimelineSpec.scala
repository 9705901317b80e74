package bulkhead.lab.report

import bulkhead.lab.model.LoadSecond
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

  it should "chart requests without an answer per second when the driver counted them per second, and only then" in {
    val wrk = records.head
    Timeline(wrk).answers.map(_.label).filter(_.startsWith("no answer")) shouldBe empty
    val seconds = (0 until 4).map(s => LoadSecond(s, Map("2xx" -> 10L), 2, None, None, Some(if s == 2 then 3L else 0L)))
    val closedLoop = wrk.copy(load = wrk.load.copy(driver = "closed-loop", seconds = seconds))
    Timeline(closedLoop).answers.find(_.label == "no answer (closed-loop)").get.points shouldBe
      Seq(0.5 -> 0.0, 1.5 -> 0.0, 2.5 -> 3.0, 3.5 -> 0.0)
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
