package bulkhead.lab.sample

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

@Slow
class CpuUsageSpec extends AnyFlatSpec with Matchers:
  "CpuUsage.compilerSeconds" should "read a JVM's JIT compiler threads, which grow while it compiles" in {
    val pid = ProcessHandle.current().pid()
    val before = CpuUsage.compilerSeconds(pid)
    before shouldBe defined
    // Work for the JIT: hot loops through a megamorphic call site, compiled by C1 then C2 (with the JIT's own
    // background work, this moves the compiler threads' CPU within the 3 s allowed).
    val end = System.nanoTime() + 3_000_000_000L
    var sink = 0L
    var round = 0
    while System.nanoTime() < end && CpuUsage.compilerSeconds(pid).forall(_ <= before.get) do
      val fs = (1 to 200).map(i => (x: Long) => x * (i + round) ^ (x >>> (i % 7)))
      (1 to 20_000).foreach(j => sink += fs(j % fs.size)(j.toLong))
      round += 1
    CpuUsage.compilerSeconds(pid).get should be > before.get
    CpuUsage.compilerSeconds(pid).get should be <= CpuUsage.seconds(pid).get
    sink should not be 42L
  }

  it should "find none in a process that is not a JVM, nor in one that is gone" in {
    val sleep = ProcessBuilder("sleep", "5").start()
    try CpuUsage.compilerSeconds(sleep.pid()) shouldBe None
    finally
      sleep.destroy()
      sleep.waitFor()
    CpuUsage.compilerSeconds(sleep.pid()) shouldBe None
  }
