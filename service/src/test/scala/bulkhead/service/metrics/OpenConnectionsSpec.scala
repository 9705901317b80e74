package bulkhead.service.metrics

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.util.concurrent.{CountDownLatch, Executors, TimeUnit}

class OpenConnectionsSpec extends AnyFlatSpec with Matchers:

  "OpenConnections" should "count connections opened and not yet closed, from many threads at once" in {
    val open = OpenConnections()
    val threads = Executors.newFixedThreadPool(8)
    val start = CountDownLatch(1)
    try
      (1 to 8).foreach { t =>
        threads.execute { () =>
          start.await()
          (1 to 10_000).foreach { i =>
            open.opened()
            if i % 4 != 0 then open.closed()
          }
        }
      }
      start.countDown()
      threads.shutdown()
      threads.awaitTermination(30, TimeUnit.SECONDS) shouldBe true
      open.count shouldBe 8 * 2_500
    finally threads.shutdownNow()
  }
