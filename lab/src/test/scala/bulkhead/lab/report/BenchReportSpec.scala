package bulkhead.lab.report

import bulkhead.lab.bench.BenchSuite
import bulkhead.lab.process.Environment
import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/** The benchmark's table and ratios, rendered from recorded runs of `bench hello` and `bench ab`. */
class BenchReportSpec extends AnyFlatSpec with Matchers:
  private val env = Environment.readFrom(Fixtures.recordsDir("bench-hello")).get
  private val hello = BenchReport("hello", "test", env, BenchRow.of(Fixtures.records("bench-hello")))
  private val abRows = BenchRow.of(Fixtures.records("bench-ab"))
  private val ab = BenchReport("ab", "test", env, abRows, BenchSuite.named("ab").get.reference)

  private def row(r: BenchReport, name: String, target: String) = r.rows.find(x => x.name == name && x.target == target).get

  "BenchReport" should "give bulkhead / each peer of the same case, CPU per request and req/s" in {
    val b = row(hello, "hello-c100", "bulkhead")
    hello.ratios shouldBe Seq("pekko-minimal", "akka-http", "spray", "nginx").map { peer =>
      val p = row(hello, "hello-c100", peer)
      f"hello-c100: bulkhead / $peer: CPU per request ${b.cpuMicros.get / p.cpuMicros.get}%.2f, " +
        f"req/s ${b.throughput / p.throughput}%.2f"
    }
  }

  it should "compare every bulkhead case of the A/B with the peer that ran alone, and with the reference case" in {
    val bulkheadCases = abRows.filter(_.target == "bulkhead").map(_.name)
    bulkheadCases should have size 10
    ab.ratios shouldBe bulkheadCases.map { c =>
      val (b, p) = (row(ab, c, "bulkhead"), row(ab, "pekko-minimal", "pekko-minimal"))
      f"$c / pekko-minimal: CPU per request ${b.cpuMicros.get / p.cpuMicros.get}%.2f, " +
        f"req/s ${b.throughput / p.throughput}%.2f"
    }
    val base = row(ab, "defaults", "bulkhead")
    ab.againstReference should have size 9
    ab.againstReference.zip(bulkheadCases.filterNot(_ == "defaults")).foreach { (line, c) =>
      val us = row(ab, c, "bulkhead").cpuMicros.get
      line should startWith(f"$c: $us%.1f us CPU/request against ${base.cpuMicros.get}%.1f (${us - base.cpuMicros.get}%+.1f us")
    }
  }

  it should "have no reference section without a reference case, nor ratios without bulkhead" in {
    hello.againstReference shouldBe empty
    BenchReport("x", "test", env, hello.rows.filterNot(_.target == "bulkhead")).ratios shouldBe empty
  }

  it should "write one table row per case and server, with the medians and every round" in {
    val lines = hello.table.linesIterator.toSeq
    lines should have size (2 + hello.rows.size)
    hello.rows.zip(lines.drop(2)).foreach { (r, line) =>
      val cells = line.split(" \\| ").map(_.stripPrefix("| ").stripSuffix(" |"))
      cells(0) shouldBe r.name
      cells(1) shouldBe r.target
      cells(3) shouldBe f"${r.throughput}%.1f"
      cells(4).split(" / ") should have size 3
      cells(7) shouldBe f"${r.cpuMicros.get}%.1f"
      cells(2) should not include "127.0.0.1"
    }
  }

  it should "say how CPU per request was measured, on which machine, and where each round's record is" in {
    val md = hello.markdown
    md should include(hello.table)
    md should include(env.markdown)
    md should include("over 3 round(s)")
    md should include("/proc/<pid>/stat")
    md should include("hello-c100: bulkhead / nginx")
    md should include("`lab/scenarios/bench/hello/1-hello-c100.conf`")
  }
