package bulkhead.lab.sample

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.nio.file.Path

/**
 * The sampler on a live JVM of this JDK with three virtual threads asleep (JDK 21+): through the JSON dump, which
 * alone lists virtual threads, and on a JDK whose JSON dump the hazard table marks (25.0.3), through Thread.print and
 * JFR events of their naps, which stop nothing.
 */
@Slow
class ServiceSamplerSpec extends AnyFlatSpec with Matchers:
  private def withSleepers[A](args: String*)(body: Long => A): A =
    val java = Path.of(System.getProperty("java.home"), "bin", "java").toString
    val source = Path.of(getClass.getResource("/jvm/VirtualSleepers.java").toURI).toString
    val jvm = ProcessBuilder((Seq(java, "-Xmx64m", source) ++ args)*).inheritIO().start()
    try body(jvm.pid)
    finally
      jvm.destroy()
      jvm.waitFor()

  /** Until the sleepers nap (the JVM compiles its source first): their scheduler has started its carriers. */
  private def awaitSleepers(pid: Long): Unit =
    val deadline = System.nanoTime() + 60_000_000_000L
    while !ThreadSampler.scheduler(pid).exists(SamplingSource.schedulerStarted) && System.nanoTime() < deadline do
      Thread.sleep(200)

  "ServiceSampler" should "count a live JVM's virtual threads in their pool from the JSON dump, when it takes it" in {
    assume(Runtime.version().feature() >= JvmPools.JsonFrom, "virtual threads need JDK 21+")
    withSleepers() { pid =>
      val sampler = ServiceSampler(pid, None, allowRiskyDumps = true)
      val deadline = System.nanoTime() + 60_000_000_000L
      var sleepers = Option.empty[PoolSample]
      while sleepers.isEmpty && System.nanoTime() < deadline do
        sleepers = sampler.sample(0).pools.find(_.pool == "sleeper")
        if sleepers.isEmpty then Thread.sleep(500)
      val pool = sleepers.getOrElse(fail(s"no virtual sleepers sampled: ${sampler.lastDumpError}"))
      (pool.threads, pool.busy, pool.blocked, pool.virtual) shouldBe (3, 3, 3, true)
      pool.commonBusyFrame.get should include("Thread.sleep")
      sampler.source.get.platform shouldBe SamplingSource.JsonDump
    }
  }

  it should "see them through Thread.print and JFR on a JDK whose JSON dump is risky, saying so" in {
    val jdk = JdkVersion.parse(System.getProperty("java.version")).get
    assume(DumpHazards.Known.of(DumpKind.Json, jdk).nonEmpty, s"JDK $jdk has no known JSON-dump defect")
    withSleepers("200") { pid =>
      awaitSleepers(pid)
      val sampler = ServiceSampler(pid, None)
      val start = System.nanoTime()
      def now = (System.nanoTime() - start) / 1e9
      val samples = (1 to 6).map { _ =>
        val s = sampler.sample(now)
        Thread.sleep(700)
        s
      }
      val source = sampler.source.get
      (source.platform, source.virtual) shouldBe (SamplingSource.ClassicInsteadOfJson, Some(SamplingSource.JfrAttach))
      source.virtualFrom should not be empty
      samples.flatMap(_.pools).map(_.pool) should not contain "sleeper"
      // A nap is seen once it ends: the last samples, taken within a nap of the end, may miss some.
      val seen = sampler.finish(samples).dropRight(1).flatMap(_.pools.find(_.pool == "sleeper"))
      seen should not be empty
      seen.foreach { pool =>
        (pool.virtual, pool.busy) shouldBe (true, pool.threads)
        pool.threads should be <= 3
        pool.commonBusyFrame.get should include("Thread.sleep")
      }
      seen.map(_.threads).max shouldBe 3
      samples.flatMap(_.pause).map(_.how).distinct shouldBe Seq(SamplePause.BySafepoints)
    }
  }

  "AttachRecording" should "record a live JVM's virtual-thread naps, give them back as a file, and stop" in {
    assume(Runtime.version().feature() >= JvmPools.JsonFrom, "virtual threads need JDK 21+")
    withSleepers("200") { pid =>
      awaitSleepers(pid)
      val recording = AttachRecording(pid)
      recording.start() shouldBe Right(())
      val since = java.time.Instant.now()
      Thread.sleep(1500)
      val file = recording.collect(since).fold(e => fail(e), identity)
      try
        val events = scala.jdk.CollectionConverters.ListHasAsScala(jdk.jfr.consumer.RecordingFile.readAllEvents(file))
          .asScala.toSeq
        events.flatMap(VirtualWait.of).map(_.name).toSet shouldBe Set("sleeper-0", "sleeper-1", "sleeper-2")
      finally java.nio.file.Files.deleteIfExists(file)
      recording.stop()
      Attach.jcmd(pid, "JFR.check").fold(e => fail(e), identity) should not include VirtualThreadEvents.recordingName
    }
  }
