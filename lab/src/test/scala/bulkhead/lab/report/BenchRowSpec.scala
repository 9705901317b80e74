package bulkhead.lab.report

import bulkhead.lab.record.CpuPerRequest
import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/** Rows of a benchmark from recorded runs: a short `bench hello` of 3 rounds and a short `bench enrichment`. */
class BenchRowSpec extends AnyFlatSpec with Matchers:
  private val hello = BenchRow.of(Fixtures.records("bench-hello"))
  private val enrichment = BenchRow.of(Fixtures.records("bench-enrichment")).head

  "BenchRow" should "group a benchmark's records into one row per case and server, in the order they ran" in {
    hello.map(r => (r.name, r.target)) shouldBe
      Seq("bulkhead", "pekko-minimal", "akka-http", "spray", "nginx").map("hello-c100" -> _)
    hello.foreach(_.records should have size 3)
  }

  it should "report the median round of throughput, CPU per request and latency" in {
    hello.foreach { row =>
      withClue(s"${row.target}: ") {
        row.throughput shouldBe row.throughputs.sorted.apply(1)
        row.throughputs shouldBe row.records.sortBy(BenchRow.startedMillis).map(_.throughput)
        row.cpuMicros shouldBe Some(row.records.flatMap(CpuPerRequest.service).sorted.apply(1))
        row.p99Ms shouldBe row.records.map(_.load.latency.p99Ms).sorted.apply(1)
      }
    }
  }

  it should "take the median of two rounds as their mean" in {
    val two = hello.head.copy(records = hello.head.records.take(2))
    two.throughput shouldBe (two.throughputs.sum / 2 +- 1e-9)
  }

  it should "state the ratio to the Little's-law bound the scenario declares, and none for a CPU-bound case" in {
    val bound = enrichment.bound.get
    bound.perSecond shouldBe 200.0 // 200 clients / 1 s of the stub
    enrichment.ratioToBound.get shouldBe (enrichment.throughput / bound.perSecond +- 1e-12)
    hello.foreach(_.ratioToBound shouldBe None)
  }

  it should "count the stub and Redis per request beside the service, and the service's memory" in {
    enrichment.dependencyMicros.keySet shouldBe Set("stub", "redis")
    enrichment.maxResidentMb.get should be > 50.0
    val line = enrichment.line("non-blocking-200")
    line should fullyMatch regex
      """non-blocking-200: [\d,.]+ req/s = \d\.\d{3} of the bound, [\d.]+ us CPU/request \(redis [\d.]+ us, stub [\d.]+ us per request\), p50 [\d.]+ ms, p99 [\d.]+ ms.*"""
    line should include(f"RSS ${enrichment.maxResidentMb.get}%.0f MB")
  }

  it should "give the bench line of a CPU-bound case without a bound" in {
    val bulkhead = hello.head
    bulkhead.line("hello-c100 on bulkhead") should startWith(
      f"hello-c100 on bulkhead: ${bulkhead.throughput}%,.1f req/s, ${bulkhead.cpuMicros.get}%.1f us CPU/request, p50 ")
    bulkhead.line("x") should endWith("(median of 3 rounds)")
  }

  it should "pair two rows' rounds in the order they ran, and take the median of the rounds' ratios" in {
    val (bulkhead, spray) = (hello.find(_.target == "bulkhead").get, hello.find(_.target == "spray").get)
    def inOrder(r: BenchRow) = r.records.sortBy(BenchRow.startedMillis).map(_.throughput)
    val expected = inOrder(bulkhead).zip(inOrder(spray)).map(_ / _)
    val (median, each) = bulkhead.pairedRatios(spray, r => Some(r.throughput)).get
    each shouldBe expected
    median shouldBe expected.sorted.apply(1)
    // A figure no round has gives no ratio, rather than a NaN one.
    bulkhead.pairedRatios(spray, _ => None) shouldBe None
  }
