package bulkhead.lab.report

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/** Quantiles of Prometheus histograms as `histogram_quantile` computes them. */
class HistogramQuantileSpec extends AnyFlatSpec with Matchers:
  // 100 requests: 10 under 5 ms, 60 more under 100 ms, 25 more under 1 s, 5 past the last bound.
  private val buckets = Map("0.005" -> 10.0, "0.1" -> 70.0, "1.0" -> 95.0, "+Inf" -> 100.0)

  "HistogramQuantile" should "interpolate linearly inside the bucket the rank falls in" in {
    // The median is the 50th request: 40 of the 60 between 5 ms and 100 ms.
    HistogramQuantile(0.5, buckets).get shouldBe (0.005 + 0.095 * 40 / 60 +- 1e-9)
    HistogramQuantile(0.05, buckets).get shouldBe (0.0025 +- 1e-9)
  }

  it should "answer the highest finite bound for a rank in +Inf, and nothing for an empty histogram" in {
    HistogramQuantile(0.99, buckets) shouldBe Some(1.0)
    HistogramQuantile(0.5, Map("0.1" -> 0.0, "+Inf" -> 0.0)) shouldBe None
    HistogramQuantile(0.5, Map.empty) shouldBe None
  }

  it should "take the distribution between two scrapes from their difference, and refuse counts that went down" in {
    val later = buckets.map((le, n) => le -> (n + (if le == "0.005" then 0.0 else 50.0)))
    val between = HistogramQuantile.between(buckets, later).get
    // The 50 requests in between all took 5..100 ms.
    HistogramQuantile(0.5, between).get shouldBe (0.005 + 0.095 * 25 / 50 +- 1e-9)
    HistogramQuantile.between(later, buckets) shouldBe None
  }

  it should "reject a quantile outside 0..1" in {
    an[IllegalArgumentException] should be thrownBy HistogramQuantile(1.5, buckets)
  }
