package bulkhead.transport

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.util.concurrent.{CountDownLatch, TimeUnit}

/**
 * A task handed to the loop from another thread runs at once, not at the end of the loop's one-second `select`: the
 * wake-up it asks for is never lost, also when the loop's own `selectNow` (releasing closed channels) took it.
 */
class IoLoopWakeUpSpec extends AnyFlatSpec with Matchers:
  "A task handed to the loop" should "run at once after the loop released closed channels while a wake-up was pending" in {
    val loop = IoLoop("wake-up-spec", 1024, (_, _) => (), (_, _) => ())
    try
      val first = CountDownLatch(1)
      // On the loop's thread: another thread hands a task (the wake-up is now pending), then the loop's selectNow.
      loop.execute { () =>
        val handing = Thread(() => loop.execute(() => first.countDown()))
        handing.start()
        handing.join()
        loop.releaseClosed()
      }
      first.await(5, TimeUnit.SECONDS) shouldBe true
      // The loop is now in `select` (up to 1 s): a task handed now must wake it, well before that second ends.
      Thread.sleep(50)
      val second = CountDownLatch(1)
      val handed = System.nanoTime()
      loop.execute(() => second.countDown())
      second.await(5, TimeUnit.SECONDS) shouldBe true
      val tookMs = (System.nanoTime() - handed) / 1_000_000
      withClue(s"the task ran $tookMs ms after it was handed: ") {
        tookMs should be < 500L
      }
    finally loop.shutdown()
  }
