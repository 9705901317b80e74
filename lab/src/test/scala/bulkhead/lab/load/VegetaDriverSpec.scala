package bulkhead.lab.load

import bulkhead.lab.model.Latencies
import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/**
 * vegeta's results as `vegeta encode -to csv` wrote them, recorded from a real run: 48 req/s for 3 s with a 1 s
 * timeout at bulkhead's `/work/pool?ms=250` on a blocking pool of 8 threads (cap 32 req/s), on loopback, JDK 25.
 */
class VegetaDriverSpec extends AnyFlatSpec with Matchers:
  private val csv = Fixtures.text("vegeta-pool8-250ms-r48-3s-timeout1s-jdk25.csv")
  private val results = csv.linesIterator.map(l => VegetaDriver.parseLine(l).fold(e => fail(e), identity)).toVector
  private val figures = VegetaDriver.read(csv, 48, "recorded").fold(e => fail(e), identity)

  "VegetaDriver" should "count every result vegeta wrote: answers by status class, timeouts as no answer" in {
    results.size shouldBe 144
    figures.answers.byClass shouldBe Map("2xx" -> results.count(_.code == 200))
    figures.answers.timeouts shouldBe results.count(_.code == 0)
    figures.answers.answered + figures.answers.unanswered shouldBe results.size
    figures.answers.unanswered should be > 0L
  }

  it should "report the answers and the requests without one second by second, as they ended" in {
    figures.seconds.map(_.second) shouldBe (0 until figures.seconds.size)
    figures.seconds.map(_.byClass.getOrElse("2xx", 0L)).sum shouldBe figures.answers.expected()
    figures.seconds.flatMap(_.unanswered).sum shouldBe figures.answers.unanswered
  }

  it should "time each answer from its intended send time, never less than vegeta's own latency" in {
    val answered = results.filter(_.answered)
    figures.latency.count shouldBe answered.size
    val own = Latencies.ofMillis(answered.map(_.latencyNanos / 1e6))
    figures.latency.p50Ms should be >= own.p50Ms * 0.999
    figures.latency.maxMs should be >= own.maxMs * 0.999
    // vegeta kept its schedule here (48 req/s is nothing for it): the two differ by its small lateness only.
    figures.latency.p50Ms shouldBe own.p50Ms +- 20.0
  }

  it should "answer at the service's own rate when it cannot keep up, below the rate offered" in {
    // Requests given up still hold a pool thread until their 250 ms end: fewer than the cap were answered in time.
    figures.throughput() should be < 48.0
    figures.throughput() should be > 0.0
  }

  it should "count the most requests in flight at once as its clients" in {
    val inFlightAt = results.map(r => results.count(o => o.sentNanos <= r.sentNanos && o.endNanos > r.sentNanos))
    figures.clients shouldBe inFlightAt.max
  }

  it should "add the wait of a request vegeta sent late to its latency (no coordinated omission)" in {
    def line(sentMs: Long, latencyMs: Long, seq: Int) =
      s"${sentMs * 1_000_000},200,${latencyMs * 1_000_000},0,0,,,,$seq,GET,http://127.0.0.1:1/x,"
    // 10 req/s: request 1 was due 100 ms after request 0 and went 300 ms late; request 2 was on time.
    val late = Seq(line(1_000, 10, 0), line(1_400, 10, 1), line(1_200, 10, 2)).mkString("\n")
    val f = VegetaDriver.read(late, 10, "late").fold(e => fail(e), identity)
    f.latency.maxMs shouldBe 310.0 +- 1.0
    f.latency.count shouldBe 3
  }

  it should "tell why a request got no answer from Go's error, and refuse a file that is not vegeta's CSV" in {
    VegetaDriver.noAnswer("Get \"http://127.0.0.1:1/\": dial tcp 127.0.0.1:1: connect: connection refused") shouldBe
      "connect"
    VegetaDriver.noAnswer("Get \"http://127.0.0.1:1/\": context deadline exceeded (Client.Timeout exceeded while " +
      "awaiting headers)") shouldBe "timeout"
    VegetaDriver.noAnswer("Get \"http://127.0.0.1:1/\": EOF") shouldBe "read"
    VegetaDriver.noAnswer("write tcp 127.0.0.1:2->127.0.0.1:1: write: broken pipe") shouldBe "write"
    VegetaDriver.read("Requests [total] 10\n", 10, "x").left.toOption.get should include("not a vegeta CSV result")
    VegetaDriver.read("", 10, "x").left.toOption.get should include("no request")
  }

  "A rate" should "be given to vegeta in whole numbers, as vegeta paces it" in {
    VegetaDriver.Pace.of(50).flag shouldBe "50/1s"
    VegetaDriver.Pace.of(47.75).flag shouldBe "4775/100s"
    VegetaDriver.Pace.of(47.75).perSecond shouldBe 47.75
  }
