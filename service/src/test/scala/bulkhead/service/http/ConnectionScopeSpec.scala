package bulkhead.service.http

import bulkhead.service.work.CancellationSignal
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.util.concurrent.{Callable, CountDownLatch, Executors, TimeUnit}

class ConnectionScopeSpec extends AnyFlatSpec with Matchers:
  "A connection's scope" should "abandon the requests still open when the connection ends, not the answered ones" in {
    val scope = ConnectionScope()
    val answered = scope.requestStarted()
    val open = scope.requestStarted()
    scope.busy shouldBe true
    scope.requestAnswered(answered)
    scope.requestsStarted shouldBe 2
    scope.busy shouldBe true
    scope.end()
    open.isCancelled shouldBe true
    answered.isCancelled shouldBe false
  }

  it should "cancel at once a request that starts after the connection ended" in {
    val scope = ConnectionScope()
    scope.end()
    scope.requestStarted().isCancelled shouldBe true
  }

  it should "be idle once every request is answered" in {
    val scope = ConnectionScope()
    scope.requestAnswered(scope.requestStarted())
    scope.busy shouldBe false
  }

  it should "cancel every request that raced with the end" in {
    val pool = Executors.newFixedThreadPool(2)
    try
      (1 to 200).foreach { _ =>
        val scope = ConnectionScope()
        val go = CountDownLatch(1)
        val starts: Callable[Seq[CancellationSignal]] = () => { go.await(); (1 to 50).map(_ => scope.requestStarted()) }
        val started = pool.submit(starts)
        val ends: Callable[Unit] = () => { go.await(); scope.end() }
        val ended = pool.submit(ends)
        go.countDown()
        ended.get(5, TimeUnit.SECONDS)
        started.get(5, TimeUnit.SECONDS).forall(_.isCancelled) shouldBe true
      }
    finally pool.shutdownNow()
  }
