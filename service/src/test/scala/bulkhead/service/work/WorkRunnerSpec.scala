package bulkhead.service.work

import bulkhead.service.config.ServiceSettings
import bulkhead.service.dispatch.{Pools, TimerPool}
import bulkhead.service.testkit.HttpProbe.eventually
import bulkhead.service.testkit.TestService
import org.apache.pekko.actor.typed.ActorSystem
import org.apache.pekko.actor.typed.scaladsl.Behaviors
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import scala.concurrent.duration.*
import scala.concurrent.{Await, Future}
import scala.util.Try

class WorkRunnerSpec extends AnyFlatSpec with Matchers:

  /** A runner on a real actor system with the service's pools, configured by `overrides`. */
  private def withRunner[A](overrides: (String, Any)*)(body: WorkRunner => A): A =
    withRunnerOn(overrides*)((runner, _) => body(runner))

  private def withRunnerOn[A](overrides: (String, Any)*)(body: (WorkRunner, ActorSystem[Nothing]) => A): A =
    val config = TestService.config(overrides.toMap)
    val system = ActorSystem[Nothing](Behaviors.empty[Nothing], s"work-runner-${System.nanoTime()}", config)
    val timer = TimerPool(Pools.Timer)
    try body(WorkRunner(system, timer, ServiceSettings(config).work), system)
    finally
      timer.shutdown()
      system.terminate()
      Await.ready(system.whenTerminated, 10.seconds)

  private def started(r: Either[WorkRefusal, Future[WorkDone]]): Future[WorkDone] =
    r.fold(e => fail(e.toString), identity)

  private def abandoned(f: Future[WorkDone]): Boolean =
    Try(Await.result(f, 5.seconds)).failed.toOption.contains(WorkAbandoned)

  "WorkRunner" should "refuse /work/default unless the operator allows it, saying how" in {
    withRunner() { runner =>
      runner.run(WorkMode.Default, 1) match
        case Left(WorkRefusal.Disabled(detail)) => detail should include("--allow-default-dispatcher-work")
        case other => fail(s"expected a refusal, got $other")
    }
    withRunner("bulkhead.service.work.allow-default-dispatcher" -> true) { runner =>
      Await.result(started(runner.run(WorkMode.Default, 1)), 5.seconds).thread should include("default-dispatcher")
    }
  }

  it should "refuse work its full pool refuses (503 with Retry-After), never running it on the submitting thread" in {
    withRunnerOn("bulkhead.dispatch.blocking-pool.thread-pool-executor.fixed-pool-size" -> 1,
      "bulkhead.dispatch.blocking-pool.thread-pool-executor.task-queue-size" -> 1,
      "bulkhead.service.work.max-in-flight.pool" -> 1) { (runner, system) =>
      // The pool's thread and its queue's one place taken by work the runner did not count: the pool is full while
      // the runner's own count is 0, as when a burst meets threads not yet back for the queue.
      val pool = Pools.executionContext(system, Pools.Blocking)
      val gate = java.util.concurrent.CountDownLatch(1)
      (1 to 2).foreach(_ => pool.execute(() => gate.await()))
      try
        val caller = Thread.currentThread().getName
        runner.run(WorkMode.Pool, 1) match
          case Left(WorkRefusal.Busy(detail, _)) => detail should include("pool is full")
          case Right(f) => fail(s"expected Busy, the work ran on ${Await.result(f, 5.seconds).thread} (caller $caller)")
          case other => fail(s"expected Busy, got $other")
        runner.inFlight(WorkMode.Pool) shouldBe 0
      finally gate.countDown()
      // Once its thread and its queue are free again (the two held tasks finish), the pool takes work again.
      val accepted = Iterator.continually { Thread.sleep(10); runner.run(WorkMode.Pool, 1) }.take(500)
        .collectFirst { case Right(f) => f }
      Await.result(accepted.getOrElse(fail("the pool never took work again")), 5.seconds).thread should
        include("blocking-pool")
    }
  }

  it should "refuse a mode's work above its max-in-flight with a Retry-After, and admit again once work ends" in {
    withRunner("bulkhead.service.work.max-in-flight.async" -> 2, "bulkhead.service.retry-after" -> "3s") { runner =>
      val running = Seq(started(runner.run(WorkMode.Async, 300)), started(runner.run(WorkMode.Async, 300)))
      runner.inFlight(WorkMode.Async) shouldBe 2
      runner.run(WorkMode.Async, 1) match
        case Left(WorkRefusal.Busy(detail, retryAfter)) =>
          detail should include("max-in-flight.async")
          retryAfter shouldBe 3.seconds
        case other => fail(s"expected Busy, got $other")
      // Other modes have their own bound.
      Await.result(started(runner.run(WorkMode.Pool, 1)), 5.seconds).mode shouldBe "pool"
      running.foreach(Await.result(_, 5.seconds))
      eventually()(runner.inFlight(WorkMode.Async) == 0) shouldBe true
      Await.result(started(runner.run(WorkMode.Async, 1)), 5.seconds).mode shouldBe "async"
    }
  }

  it should "interrupt pool work that sleeps and drop pool work that waits when their requests are abandoned" in {
    withRunner("bulkhead.dispatch.blocking-pool.thread-pool-executor.fixed-pool-size" -> 1) { runner =>
      val sleeping = CancellationSignal()
      val waiting = CancellationSignal()
      val first = started(runner.run(WorkMode.Pool, 60000, sleeping))
      val second = started(runner.run(WorkMode.Pool, 60000, waiting))
      runner.inFlight(WorkMode.Pool) shouldBe 2
      waiting.cancel()
      abandoned(second) shouldBe true
      sleeping.cancel()
      abandoned(first) shouldBe true
      // The one thread is free again at once: the dropped task does not sleep once it is dequeued.
      Await.result(started(runner.run(WorkMode.Pool, 1)), 5.seconds).ms shouldBe 1
      eventually()(runner.inFlight(WorkMode.Pool) == 0) shouldBe true
    }
  }

  it should "release the virtual thread and the timer of abandoned work" in {
    withRunner() { runner =>
      val modes = if Pools.virtualThreadsAvailable then Seq(WorkMode.Virtual, WorkMode.Async) else Seq(WorkMode.Async)
      for mode <- modes do
        withClue(mode.key) {
          val signal = CancellationSignal()
          val work = started(runner.run(mode, 60000, signal))
          runner.inFlight(mode) shouldBe 1
          signal.cancel()
          abandoned(work) shouldBe true
          eventually()(runner.inFlight(mode) == 0) shouldBe true
        }
    }
  }

  it should "give up at once work whose request was abandoned before it started" in {
    withRunner() { runner =>
      val signal = CancellationSignal()
      signal.cancel()
      abandoned(started(runner.run(WorkMode.Pool, 60000, signal))) shouldBe true
      eventually()(runner.inFlight(WorkMode.Pool) == 0) shouldBe true
    }
  }
