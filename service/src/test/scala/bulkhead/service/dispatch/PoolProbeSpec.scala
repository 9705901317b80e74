package bulkhead.service.dispatch

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.util.concurrent.{CountDownLatch, Executors, ForkJoinPool, ThreadPoolExecutor, TimeUnit}

/** Reading pools through their probe: what each kind of executor reports, and which executor is read. */
class PoolProbeSpec extends AnyFlatSpec with Matchers:
  private val pool = PoolName("bulkhead.spec.probed")
  private def system = s"pool-probe-spec-${System.nanoTime()}"

  "PoolProbe" should "read a fork-join pool's parallelism as its size, and no completed count" in {
    val name = system
    val fj = ForkJoinPool(3)
    try
      val probe = PoolProbe.adopt(name, pool, fj)
      probe.maxThreads shouldBe Some(3.0)
      probe.parallelism shouldBe Some(3.0)
      probe.steals.isDefined shouldBe true
      probe.completedTasks shouldBe None
    finally
      fj.shutdownNow()
      PoolProbe.forget(name)
  }

  it should "read the executor registered now, not the one it was made with" in {
    val name = system
    val first = Executors.newFixedThreadPool(2).asInstanceOf[ThreadPoolExecutor]
    val second = Executors.newFixedThreadPool(5).asInstanceOf[ThreadPoolExecutor]
    try
      val probe = PoolProbe.adopt(name, pool, first)
      probe.maxThreads shouldBe Some(2.0)
      PoolProbe.adopt(name, pool, second)
      probe.maxThreads shouldBe Some(5.0)
    finally
      first.shutdownNow()
      second.shutdownNow()
      PoolProbe.forget(name)
  }

  it should "read nothing once its actor system is forgotten, and keep other systems' pools" in {
    val (gone, kept) = (system, system + "-kept")
    val executor = Executors.newFixedThreadPool(1).asInstanceOf[ThreadPoolExecutor]
    try
      val goneProbe = PoolProbe.adopt(gone, pool, executor)
      val keptProbe = PoolProbe.adopt(kept, pool, executor)
      PoolProbe.forget(gone)
      goneProbe.activeThreads shouldBe None
      keptProbe.activeThreads shouldBe Some(0.0)
    finally
      executor.shutdownNow()
      PoolProbe.forget(kept)
  }

  it should "count tasks in progress and finished for virtual threads, which report neither" in {
    assume(Pools.virtualThreadsAvailable, "virtual threads need JDK 21+")
    val name = system
    val virtual = classOf[Executors].getMethod("newVirtualThreadPerTaskExecutor").invoke(null)
      .asInstanceOf[java.util.concurrent.ExecutorService]
    val counted = internal.CountingExecutorService(virtual)
    val release = CountDownLatch(1)
    try
      val probe = PoolProbe.adopt(name, pool, counted)
      (1 to 4).foreach(_ => counted.execute(() => release.await()))
      probe.activeThreads shouldBe Some(4.0)
      release.countDown()
      counted.shutdown()
      counted.awaitTermination(10, TimeUnit.SECONDS) shouldBe true
      probe.completedTasks shouldBe Some(4.0)
      probe.activeThreads shouldBe Some(0.0)
    finally PoolProbe.forget(name)
  }
