package bulkhead.lab.record

import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/** The rate of the stretch a run's samples read, from its driver's answers counted second by second. */
class SampledRatesSpec extends AnyFlatSpec with Matchers:
  // Row 4 on bulkhead: 1,000 connections opening at its start, a 1,000-thread dump every ~4.6 s.
  private val r = Fixtures.records("row-4-edges").head
  private val inside = LoadWindow.between(r.samples, r.measuredFrom, r.measuredTo)
  private def answers(from: Int, to: Int) =
    r.load.seconds.filter(s => s.second >= from && s.second < to).map(_.byClass.getOrElse("2xx", 0L)).sum

  "The rates between the samples" should "count the seconds from the first sample's up to the last one's" in {
    inside.size should be >= 3
    val s = r.sampledRates.get
    s.from shouldBe math.floor(inside.head.second).toInt
    s.to shouldBe math.floor(inside.last.second).toInt
    s.expected shouldBe (answers(s.from, s.to).toDouble / (s.to - s.from) +- 1e-9)
    s.answered shouldBe s.expected // every answer a 2xx
    // The connections opening in the first second are outside: the stretch reads more than the run's mean.
    s.expected should be > r.throughput * 1.05
  }

  it should "fall back to the run's rate with fewer than two samples inside, a stretch too short, or no counts" in {
    SampledRates.of(r.load.seconds, inside.take(1), "2xx") shouldBe None
    val close = Seq(inside.head, inside.head.copy(second = inside.head.second + SampledRates.MinSeconds - 1))
    SampledRates.of(r.load.seconds, close, "2xx") shouldBe None
    SampledRates.of(Nil, inside, "2xx") shouldBe None
    // Counts that end before the stretch does (a driver that stopped counting) are not read as a stall.
    SampledRates.of(r.load.seconds.filter(_.second < inside.last.second.toInt - 2), inside, "2xx") shouldBe None
  }

  it should "count a second without answers as none" in {
    val s = r.sampledRates.get
    val gap = r.load.seconds.filterNot(_.second == s.from + 1)
    val lost = answers(s.from + 1, s.from + 2)
    SampledRates.of(gap, inside, "2xx").get.expected shouldBe (s.expected - lost.toDouble / (s.to - s.from) +- 1e-9)
  }
