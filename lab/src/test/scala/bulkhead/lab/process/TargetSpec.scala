package bulkhead.lab.process

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

class TargetSpec extends AnyFlatSpec with Matchers:

  "Target.peerFlags" should "keep the seeds' flags with their values, skip bulkhead's own with or without a value" in {
    Target.peerFlags(Target.AkkaHttp, Seq("--allow-default-dispatcher-work", "--blocking-pool-size", "200", "--routees", "1",
      "--max-connections", "1024")) shouldBe Seq("--blocking-pool-size", "200", "--max-connections", "1024")
  }
