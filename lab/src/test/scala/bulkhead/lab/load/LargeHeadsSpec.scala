package bulkhead.lab.load

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.charset.StandardCharsets.US_ASCII

/** The heads the large-heads case holds: their size is what the fault case and its figures name. */
class LargeHeadsSpec extends AnyFlatSpec with Matchers:
  "LargeHeads.head" should "be exactly the bytes asked for, in headers within Pekko's 8 KiB a value, unfinished" in {
    for bytes <- Seq(200, 8_200, 65_024, 66_560) do
      val head = String(LargeHeads.head(8080, bytes), US_ASCII)
      head.length shouldBe bytes
      head should endWith("\r\n")
      head should not include "\r\n\r\n"
      head.split("\r\n").drop(2).map(_.length).max should be <= 8_000 + "X-Pad-99: ".length
  }
