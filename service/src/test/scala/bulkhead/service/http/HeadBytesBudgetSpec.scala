package bulkhead.service.http

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.util.concurrent.{CountDownLatch, Executors, TimeUnit}

/** The shared count of request-head bytes in progress: what it takes, refuses and gives back. */
class HeadBytesBudgetSpec extends AnyFlatSpec with Matchers:

  "HeadBytesBudget" should "take bytes up to its limit exactly, and refuse a take that would pass it, taking none" in {
    val budget = HeadBytesBudget(1000)
    budget.tryTake(600) shouldBe true
    budget.tryTake(400) shouldBe true
    budget.inProgress shouldBe 1000
    budget.tryTake(1) shouldBe false
    budget.inProgress shouldBe 1000
  }

  it should "take again once bytes are given back, and read 0 when everything taken is back" in {
    val budget = HeadBytesBudget(1000)
    budget.tryTake(700) shouldBe true
    budget.tryTake(400) shouldBe false
    budget.giveBack(700)
    budget.inProgress shouldBe 0
    budget.tryTake(400) shouldBe true
    budget.giveBack(400)
    budget.giveBack(0)
    budget.inProgress shouldBe 0
  }

  it should "never pass its limit nor lose a byte when many threads take and give back at once" in {
    val budget = HeadBytesBudget(10_000)
    val threads = 8
    val pool = Executors.newFixedThreadPool(threads)
    val done = CountDownLatch(threads)
    @volatile var overLimit = false
    try
      for _ <- 1 to threads do
        pool.execute { () =>
          for i <- 1 to 20_000 do
            val n = 1 + i % 1500
            if budget.tryTake(n) then
              if budget.inProgress > budget.limit then overLimit = true
              budget.giveBack(n)
          done.countDown()
        }
      done.await(30, TimeUnit.SECONDS) shouldBe true
    finally pool.shutdownNow()
    overLimit shouldBe false
    budget.inProgress shouldBe 0
  }

  it should "refuse a limit that is not positive" in {
    an[IllegalArgumentException] should be thrownBy HeadBytesBudget(0)
  }
