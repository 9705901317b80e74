package bulkhead.lab.load

import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

/** wrk's output with bulkhead's Lua report, recorded from a real run (16 connections on a pool of 4 threads). */
@Slow
class WrkDriverSpec extends AnyFlatSpec with Matchers:
  private val raw = Fixtures.text("wrk-lua-pool4-c16-jdk25.txt")
  private val figures = WrkDriver.parse(raw, "recorded").fold(e => fail(e), identity)
  private val printed = WrkParser.parse(raw).fold(e => fail(e), identity)

  "WrkDriver" should "count every answer wrk counted, by status class" in {
    figures.answers.answered shouldBe printed.requests
    figures.answers.byClass.keySet shouldBe Set("2xx")
    figures.throughput() shouldBe (printed.requestsPerSecond +- 0.1)
  }

  it should "report the answers second by second from the start of the run" in {
    figures.seconds.map(_.second) shouldBe (0 until figures.seconds.size)
    figures.seconds.map(_.byClass("2xx")).sum shouldBe printed.requests
  }

  it should "rebuild wrk's latency histogram from its quantiles (percentiles as wrk printed them)" in {
    figures.latency.count shouldBe printed.requests
    figures.latency.p50Ms shouldBe (printed.p50.get +- printed.p50.get * 0.01)
    figures.latency.p99Ms shouldBe (printed.p99.get +- printed.p99.get * 0.01)
    figures.latency.maxMs shouldBe (printed.latencyMaxMs +- printed.latencyMaxMs * 0.01)
  }

  it should "refuse an output without the report (wrk run without the script)" in {
    WrkDriver.parse(Fixtures.text("wrk-pool4-c16-jdk25.txt"), "plain").isLeft shouldBe true
  }
