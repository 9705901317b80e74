package bulkhead.lab.diagnose

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

class VerdictSpec extends AnyFlatSpec with Matchers:
  "A fix" should "replace the flags it sets and keep a flag that takes no value where it stood" in {
    val fix = Fix(Seq("--parallelism-min", "32", "--parallelism-max", "32"), "a default dispatcher of 32 threads")
    fix.applyTo(Seq("--allow-default-dispatcher-work", "--parallelism-min", "4", "--parallelism-max", "4")) shouldBe
      Seq("--allow-default-dispatcher-work", "--parallelism-min", "32", "--parallelism-max", "32")
  }

  it should "replace a --set of the same key only, whatever its value" in {
    val fix = Fix(Seq("--set", "bulkhead.enrichment.soap.max-connections=20"), "a host pool of 20")
    fix.applyTo(Seq("--set", "bulkhead.enrichment.soap.max-connections=4", "--set", "bulkhead.enrichment.routees=8",
      "--expose-metrics")) shouldBe Seq("--set", "bulkhead.enrichment.routees=8", "--expose-metrics", "--set",
      "bulkhead.enrichment.soap.max-connections=20")
  }

  "A command line" should "read as options: a flag with its value, a flag alone before another flag" in {
    Fix.options(Seq("--a", "1", "--b", "--c", "-1", "--d")) shouldBe
      Seq(Seq("--a", "1"), Seq("--b"), Seq("--c", "-1"), Seq("--d"))
  }
