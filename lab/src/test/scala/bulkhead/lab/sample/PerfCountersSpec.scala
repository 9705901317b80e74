package bulkhead.lab.sample

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.ByteBuffer

class PerfCountersSpec extends AnyFlatSpec with Matchers:
  private def recorded = ByteBuffer.wrap(getClass.getResourceAsStream("/fixtures/hsperfdata-bulkhead-jdk25").readAllBytes())

  "PerfCounters.parse" should "read the long counters of a recorded JVM's perf-data file (the service on JDK 25)" in {
    val counters = PerfCounters.parse(recorded).get
    // What `jcmd <pid> PerfCounter.print` printed for the same JVM a moment after the copy was taken.
    counters("sun.os.hrt.frequency") shouldBe 1_000_000_000L
    counters("java.threads.live") should (be >= 20L and be <= 60L)
    val sp = PerfCounters.safepoints(counters).get
    sp.count should be > 0L
    sp.totalMs should be > 0.0
    sp.syncMs should (be >= 0.0 and be <= sp.totalMs)
    counters.size should be > 100
  }

  it should "refuse what is not a perf-data buffer" in {
    PerfCounters.parse(ByteBuffer.wrap(Array.fill[Byte](64)(7))) shouldBe None
    PerfCounters.parse(ByteBuffer.allocate(8)) shouldBe None
  }

  "PerfCounters.read" should "follow this JVM's safepoints as they happen" in {
    val pid = ProcessHandle.current().pid()
    val before = PerfCounters.read(pid).flatMap(PerfCounters.safepoints).get
    (1 to 3).foreach(_ => System.gc())
    val after = PerfCounters.read(pid).flatMap(PerfCounters.safepoints).get
    after.count should be >= before.count + 3
    after.totalMs should be > before.totalMs
  }

  it should "find none for a process that is not a JVM" in {
    val sleep = ProcessBuilder("sleep", "5").start()
    try PerfCounters.read(sleep.pid()) shouldBe None
    finally
      sleep.destroy()
      sleep.waitFor()
  }
