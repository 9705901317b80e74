package bulkhead.service.dispatch

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.util.concurrent.{CountDownLatch, RejectedExecutionException}
import scala.concurrent.duration.*

class WorkQueuePoolSpec extends AnyFlatSpec with Matchers:

  "WorkQueuePool" should "grow from core to max threads before queueing, then queue, then refuse" in {
    val pool = WorkQueuePool(Pools.SoapWorkQueue, WorkQueueSettings(core = 1, max = 3, queue = 2, keepAlive = 1.minute))
    val release = CountDownLatch(1)
    val blocker: Runnable = () => release.await()
    try
      (1 to 3).foreach(_ => pool.execute(blocker))
      pool.getPoolSize shouldBe 3
      pool.getQueue.size shouldBe 0
      (1 to 2).foreach(_ => pool.execute(blocker))
      pool.getQueue.size shouldBe 2
      a[RejectedExecutionException] should be thrownBy pool.execute(blocker)
    finally
      release.countDown()
      pool.shutdownNow()
  }

  it should "name its threads after the pool's configuration path" in {
    val pool = WorkQueuePool(Pools.SoapWorkQueue, WorkQueueSettings(1, 1, 1, 1.minute))
    try
      val name = scala.concurrent.Promise[String]()
      pool.execute(() => name.success(Thread.currentThread().getName))
      scala.concurrent.Await.result(name.future, 5.seconds) shouldBe "bulkhead.soap.work-queue-1"
    finally pool.shutdownNow()
  }
