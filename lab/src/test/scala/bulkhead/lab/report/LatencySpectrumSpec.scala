package bulkhead.lab.report

import bulkhead.lab.model.Latencies
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/** The latency-by-percentile plot's points, on a distribution whose percentiles are known. */
class LatencySpectrumSpec extends AnyFlatSpec with Matchers:

  "A percentile in nines" should "be 0, 90, 99 and 99.9 % at 0, 1, 2 and 3 nines" in {
    LatencySpectrum.percentile(0) shouldBe 0.0
    LatencySpectrum.percentile(1) shouldBe 90.0 +- 1e-9
    LatencySpectrum.percentile(2) shouldBe 99.0 +- 1e-9
    LatencySpectrum.percentile(3) shouldBe 99.9 +- 1e-9
  }

  "The spectrum" should "go as deep as the count resolves (3 nines for 1,000 answers), then end at the maximum" in {
    // 1 ms to 1,000 ms, one answer each: the latency at a percentile is that many tenths of a second (within 0.1 %).
    val points = LatencySpectrum.points(Latencies.ofMillis((1 to 1000).map(_.toDouble)))
    points.head._1 shouldBe 0.0
    points.init.last._1 should (be > 2.9 and be <= 3.0)
    points.last._1 shouldBe 3.0 +- 1e-9
    points.last._2 shouldBe 1000.0 +- 1.0
    points.find(p => math.abs(p._1 - 1.0) < 1e-9).get._2 shouldBe 900.0 +- 1.0
    points.map(_._2) shouldBe sorted
  }

  it should "have no point without an answer" in {
    LatencySpectrum.points(Latencies.ofMillis(Nil)) shouldBe Nil
  }
