package bulkhead.lab.record

import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/** The rate of the stretch a run's samples read, from its driver's answers counted second by second. */
class SampledRatesSpec extends AnyFlatSpec with Matchers:
  // Row 4 on bulkhead: 1,000 connections opening at its start, a 1,000-thread dump every ~4.6 s.
  private val r = Fixtures.records("row-4-edges").head
  private val inside = LoadWindow.between(r.samples, r.measuredFrom, r.measuredTo)
  private def count(second: Int) = r.load.seconds.find(_.second == second).fold(0L)(_.byClass.getOrElse("2xx", 0L))

  "The rates between the samples" should "count each second for its share inside the stretch from the first sample to the last" in {
    inside.size should be >= 3
    val s = r.sampledRates.get
    s.from shouldBe inside.head.second
    s.to shouldBe inside.last.second
    val (first, last) = (s.from.toInt, s.to.toInt)
    val whole = (first + 1 until last).map(count).sum
    val answers = whole + count(first) * (first + 1 - s.from) + count(last) * (s.to - last)
    s.expected shouldBe (answers / (s.to - s.from) +- 1e-9)
    s.answered shouldBe s.expected // every answer a 2xx
    // The connections opening in the first second are outside: the stretch reads more than the run's mean.
    s.expected should be > r.throughput * 1.05
  }

  it should "not count the second before a sample taken a hair before that second ended" in {
    // Samples at 0.9994 s and 13.9994 s: the second the connections opened in (0) counts for 0.0006 of itself.
    val early = Seq(inside.head.copy(second = 0.9994), inside.last.copy(second = 13.9994))
    val s = SampledRates.of(r.load.seconds, early, "2xx").get
    s.expected shouldBe ((1 to 13).map(count).sum / 13.0 +- 0.5)
    s.expected should be > (0 until 13).map(count).sum / 13.0
  }

  it should "fall back to the run's rate with fewer than two samples inside, a stretch too short, or no counts" in {
    SampledRates.of(r.load.seconds, inside.take(1), "2xx") shouldBe None
    val close = Seq(inside.head, inside.head.copy(second = inside.head.second + SampledRates.MinSeconds - 0.5))
    SampledRates.of(r.load.seconds, close, "2xx") shouldBe None
    SampledRates.of(Nil, inside, "2xx") shouldBe None
    // Counts that end before the stretch does (a driver that stopped counting) are not read as a stall.
    SampledRates.of(r.load.seconds.filter(_.second < inside.last.second.toInt - 2), inside, "2xx") shouldBe None
  }

  it should "count a second without answers as none" in {
    val s = r.sampledRates.get
    val empty = s.from.toInt + 2
    val gap = r.load.seconds.filterNot(_.second == empty)
    SampledRates.of(gap, inside, "2xx").get.expected shouldBe (s.expected - count(empty) / (s.to - s.from) +- 1e-9)
  }
