package bulkhead.lab.sample

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.nio.file.Path

/** The sampler on a live JVM of this JDK, whose virtual threads only a JSON dump shows (JDK 21+). */
@Slow
class ServiceSamplerSpec extends AnyFlatSpec with Matchers:

  "ServiceSampler" should "count a live JVM's virtual threads in their pool, asleep with a request's worth of work" in {
    assume(Runtime.version().feature() >= JvmPools.JsonFrom, "virtual threads need JDK 21+")
    val java = Path.of(System.getProperty("java.home"), "bin", "java").toString
    val source = Path.of(getClass.getResource("/jvm/VirtualSleepers.java").toURI).toString
    val jvm = ProcessBuilder(java, "-Xmx64m", source).inheritIO().start()
    try
      val sampler = ServiceSampler(jvm.pid, None)
      val deadline = System.nanoTime() + 60_000_000_000L
      var sleepers = Option.empty[PoolSample]
      while sleepers.isEmpty && System.nanoTime() < deadline do
        sleepers = sampler.sample(0).pools.find(_.pool == "sleeper")
        if sleepers.isEmpty then Thread.sleep(500)
      val pool = sleepers.getOrElse(fail(s"no virtual sleepers sampled: ${sampler.lastDumpError}"))
      (pool.threads, pool.busy, pool.blocked, pool.virtual) shouldBe (3, 3, 3, true)
      pool.commonBusyFrame.get should include("Thread.sleep")
    finally
      jvm.destroy()
      jvm.waitFor()
  }
