package bulkhead.lab.faults

import bulkhead.lab.record.{RequestLog, RequestOutcome}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/** The undersized pool's service flags per SOAP mode, and which steps of the suite `--only` selects. */
class UndersizedPoolSpec extends AnyFlatSpec with Matchers:
  private val pool = UndersizedPool()

  "The undersized pool" should "set each SOAP mode's calls at once with --set, and nothing else" in {
    pool.flags("non-blocking") shouldBe Seq("--soap-mode", "non-blocking", "--set",
      "bulkhead.enrichment.soap.max-connections=8")
    pool.flags("virtual") shouldBe Seq("--soap-mode", "virtual", "--set", "bulkhead.enrichment.soap.max-connections=8")
    pool.flags("blocking") shouldBe Seq("--soap-mode", "blocking",
      "--set", "bulkhead.enrichment.soap.work-queue.core=8", "--set", "bulkhead.enrichment.soap.work-queue.max=8")
  }

  it should "refuse users that do not overload its slots" in {
    an[IllegalArgumentException] should be thrownBy UndersizedPool(slots = 8, users = 10)
  }

  "--only" should "run every step when empty, the undersized pool alone when it names it alone" in {
    val all = FaultSuiteSettings.Short
    (all.runsRamp, all.runsUndersized, all.runs.nonEmpty) shouldBe (true, true, true)
    val alone = all.copy(only = Set(UndersizedPool.Name))
    (alone.runsRamp, alone.runsUndersized, alone.runs.isEmpty) shouldBe (false, true, true)
    val fault = all.copy(only = Set("reset"))
    (fault.runsRamp, fault.runsUndersized) shouldBe (true, false)
  }

  "Answers a second" should "count each answer by the share of its call inside the window, wherever the waves fall" in {
    // 8 slots answering together every 1.05 s (1 s calls, 50 ms to hand each slot on): 8 / 1.05 = 7.62 a second.
    def waves(phase: Double) = (0 until 20).flatMap(k => Seq.fill(8)(phase + k * 1.05)).map(end =>
      RequestLog.Entry("u", end - 1.5, end, 1500, RequestOutcome.Status(200), None))
    Seq(0.0, 0.3, 0.6, 0.99).foreach { phase =>
      GoodputDriver.answersPerSecond(waves(phase), 4, 16, 1.0) shouldBe (8 / 1.05) +- 0.05
    }
    // A plain count of the answers ending in the window moves by a wave with the phase.
    val counts = Seq(0.0, 0.3, 0.6, 0.99).map(p => waves(p).count(e => e.endSecond >= 4 && e.endSecond < 16))
    counts.max - counts.min shouldBe 8
    val refused = RequestLog.Entry("u", 5, 6, 1000, RequestOutcome.Status(503), None)
    GoodputDriver.answersPerSecond(Seq(refused), 4, 16, 1.0) shouldBe 0.0
  }
