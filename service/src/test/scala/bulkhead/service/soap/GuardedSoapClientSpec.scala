package bulkhead.service.soap

import bulkhead.service.config.BreakerSettings
import bulkhead.service.enrichment.{CircuitState, SoapClient, ThirdPartyCustomer, ThirdPartyFailure}
import bulkhead.service.testkit.HttpProbe.eventually
import org.apache.pekko.actor.testkit.typed.scaladsl.ActorTestKit
import org.scalatest.BeforeAndAfterAll
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.util.concurrent.atomic.{AtomicInteger, AtomicReference}
import scala.concurrent.duration.*
import scala.concurrent.{Await, Future}

/** Pekko's circuit breaker around a scripted third party: what counts as a failure, and the state it publishes. */
class GuardedSoapClientSpec extends AnyFlatSpec with Matchers with BeforeAndAfterAll:
  private val testKit = ActorTestKit()
  private given org.apache.pekko.actor.typed.ActorSystem[?] = testKit.system
  override def afterAll(): Unit = testKit.shutdownTestKit()

  /** A third party that answers what `next` holds and counts the calls it receives. */
  private final class Scripted extends SoapClient:
    val next = AtomicReference[Either[ThirdPartyFailure, ThirdPartyCustomer]](Right(ThirdPartyCustomer(1, "A", "s", "c")))
    val calls = AtomicInteger()
    def getCustomer(id: Int): Future[Either[ThirdPartyFailure, ThirdPartyCustomer]] =
      calls.incrementAndGet()
      Future.successful(next.get)

  private def guarded(maxFailures: Int, reset: FiniteDuration) =
    val third = Scripted()
    third -> GuardedSoapClient(third, BreakerSettings(maxFailures, 5.seconds, reset), retryAfterMillis = 1000)

  private def call(client: GuardedSoapClient) = Await.result(client.getCustomer(1), 5.seconds)

  "GuardedSoapClient" should "open after max-failures failures in a row and then refuse without calling" in {
    val (third, client) = guarded(maxFailures = 3, reset = 1.minute)
    client.state shouldBe CircuitState.Closed
    third.next.set(Left(ThirdPartyFailure.Fault("boom")))
    (1 to 3).foreach(_ => call(client) shouldBe Left(ThirdPartyFailure.Fault("boom")))
    eventually()(client.state == CircuitState.Open) shouldBe true
    call(client) match
      case Left(ThirdPartyFailure.Refused(_, retryAfterMillis)) => retryAfterMillis should be >= 1000L
      case other => fail(s"expected Refused, got $other")
    third.calls.get shouldBe 3
  }

  it should "not count an unknown customer as a failure of the third party" in {
    val (third, client) = guarded(maxFailures = 2, reset = 1.minute)
    third.next.set(Left(ThirdPartyFailure.UnknownCustomer(1)))
    (1 to 5).foreach(_ => call(client) shouldBe Left(ThirdPartyFailure.UnknownCustomer(1)))
    client.state shouldBe CircuitState.Closed
    third.calls.get shouldBe 5
  }

  it should "go half-open after the reset timeout and close again on a successful call" in {
    val (third, client) = guarded(maxFailures = 1, reset = 200.millis)
    third.next.set(Left(ThirdPartyFailure.Timeout("slow")))
    call(client)
    eventually()(client.state == CircuitState.Open) shouldBe true
    eventually()(client.state == CircuitState.HalfOpen) shouldBe true
    third.next.set(Right(ThirdPartyCustomer(1, "A", "s", "c")))
    call(client).isRight shouldBe true
    eventually()(client.state == CircuitState.Closed) shouldBe true
  }

  it should "answer its own call timeout as a timeout, made on the dispatcher rather than the scheduler's thread" in {
    val silent: SoapClient = _ => scala.concurrent.Promise[Either[ThirdPartyFailure, ThirdPartyCustomer]]().future
    val client = GuardedSoapClient(silent, BreakerSettings(maxFailures = 5, 100.millis, 1.minute), retryAfterMillis = 1000)
    val completedOn = scala.concurrent.Promise[String]()
    val answer = client.getCustomer(1)
    answer.onComplete(_ => completedOn.success(Thread.currentThread().getName))(scala.concurrent.ExecutionContext.parasitic)
    Await.result(answer, 5.seconds) shouldBe Left(ThirdPartyFailure.Timeout("circuit breaker call timeout 100 milliseconds"))
    // What follows a call's answer (admission starts the next waiting call) must not run on the thread keeping time.
    val thread = Await.result(completedOn.future, 5.seconds)
    thread should include("default-dispatcher")
    thread should not include "scheduler"
  }
