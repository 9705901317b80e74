package bulkhead.stub

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

class LatencySpec extends AnyFlatSpec with Matchers:

  "Latency.parse" should "read the three forms, and describe each as it was written" in {
    for text <- Seq("fixed:1000", "fixed:0", "uniform:500:1500", "uniform:7:7", "normal:1000:100", "normal:5:0") do
      withClue(text)(Latency.parse(text).map(_.describe) shouldBe Right(text))
    Latency.parse("uniform:500:1500") shouldBe Right(Latency.Uniform(500, 1500))
  }

  it should "refuse a malformed or impossible latency, quoting it" in {
    val bad = Seq("", "fixed", "fixed:-1", "fixed:1s", "fixed:1:2", "uniform:9:3", "uniform:1", "normal:-5:1",
      "normal:5:-1", "gaussian:1:2", "fixed: ")
    for text <- bad do
      withClue(s"'$text': ")(Latency.parse(text).left.toOption.get should include(s"'$text'"))
  }

  "A latency" should "sample within its bounds" in {
    Seq.fill(100)(Latency.Fixed(250).sampleMs()).distinct shouldBe Seq(250L)
    val uniform = Seq.fill(2000)(Latency.Uniform(10, 20).sampleMs())
    all(uniform) should (be >= 10L and be <= 20L)
    uniform.toSet should contain allOf (10L, 20L)
  }

  it should "never sample a negative delay, however wide the normal distribution" in {
    val normal = Seq.fill(2000)(Latency.Normal(5, 100).sampleMs())
    all(normal) should be >= 0L
    normal.count(_ == 0L) should be > 0
    normal.max should be > 5L
  }
