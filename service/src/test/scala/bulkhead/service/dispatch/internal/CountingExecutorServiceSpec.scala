package bulkhead.service.dispatch.internal

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.util.concurrent.{CountDownLatch, Executors, RejectedExecutionException, TimeUnit}

class CountingExecutorServiceSpec extends AnyFlatSpec with Matchers:

  "CountingExecutorService" should "count tasks running now and tasks finished, a failing task as finished" in {
    val counted = CountingExecutorService(Executors.newCachedThreadPool())
    val release = CountDownLatch(1)
    try
      (1 to 3).foreach(_ => counted.execute(() => release.await()))
      counted.execute(() => throw RuntimeException("task failed (expected by the test)"))
      (1 to 200).find { _ => counted.completed == 1 || { Thread.sleep(10); false } }
      (counted.active, counted.completed) shouldBe (3L, 1L)
      release.countDown()
      counted.shutdown()
      counted.awaitTermination(10, TimeUnit.SECONDS) shouldBe true
      (counted.active, counted.completed) shouldBe (0L, 4L)
    finally counted.shutdownNow()
  }

  it should "not count a task the underlying executor refuses as running" in {
    val underlying = Executors.newSingleThreadExecutor()
    underlying.shutdown()
    val counted = CountingExecutorService(underlying)
    a[RejectedExecutionException] should be thrownBy counted.execute(() => ())
    counted.active shouldBe 0L
  }
