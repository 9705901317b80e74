package bulkhead.service.work

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.{Executors, TimeUnit}
import scala.concurrent.Await
import scala.concurrent.duration.*

class BlockingSleepSpec extends AnyFlatSpec with Matchers:

  "BlockingSleep" should "not sleep once dropped, and release its slot exactly once" in {
    val released = AtomicInteger()
    val sleep = BlockingSleep(WorkMode.Pool, 60000, () => released.incrementAndGet())
    sleep.cancel()
    val start = System.nanoTime()
    sleep.run()
    (System.nanoTime() - start).nanos should be < 1.second
    sleep.cancel()
    released.get shouldBe 1
    sleep.result.value.flatMap(_.failed.toOption) shouldBe Some(WorkAbandoned)
  }

  it should "leave the pool's thread without an interrupt when cancelled after it ended" in {
    val pool = Executors.newSingleThreadExecutor()
    try
      val sleep = BlockingSleep(WorkMode.Pool, 1, () => ())
      pool.execute(sleep)
      Await.result(sleep.result, 5.seconds).ms shouldBe 1
      sleep.cancel()
      val interrupted = pool.submit(() => Thread.currentThread().isInterrupted)
      interrupted.get(5, TimeUnit.SECONDS) shouldBe false
    finally pool.shutdownNow()
  }
