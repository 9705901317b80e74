package bulkhead.lab.faults

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/** The undersized pool's service flags per SOAP mode, and which steps of the suite `--only` selects. */
class UndersizedPoolSpec extends AnyFlatSpec with Matchers:
  private val pool = UndersizedPool()

  "The undersized pool" should "set each SOAP mode's calls at once with --set, and nothing else" in {
    pool.flags("non-blocking") shouldBe Seq("--soap-mode", "non-blocking", "--set",
      "bulkhead.enrichment.soap.max-connections=8")
    pool.flags("virtual") shouldBe Seq("--soap-mode", "virtual", "--set", "bulkhead.enrichment.soap.max-connections=8")
    pool.flags("blocking") shouldBe Seq("--soap-mode", "blocking", "--set", "bulkhead.enrichment.soap.work-queue.core=8",
      "--set", "bulkhead.enrichment.soap.work-queue.max=8")
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
