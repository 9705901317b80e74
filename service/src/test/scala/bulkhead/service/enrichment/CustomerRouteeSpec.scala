package bulkhead.service.enrichment

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.util.concurrent.atomic.AtomicInteger
import scala.concurrent.{ExecutionContext, Future, Promise}

/** A routee's enrichment: what it answers, and which of its steps are tasks on the dispatcher. */
class CustomerRouteeSpec extends AnyFlatSpec with Matchers:
  /** Runs each task at once, counting them: a task is a hand-off between threads on the real dispatcher. */
  private final class CountingContext extends ExecutionContext:
    val tasks = AtomicInteger()
    def execute(task: Runnable): Unit =
      tasks.incrementAndGet()
      task.run()
    def reportFailure(cause: Throwable): Unit = throw cause

  /** A SOAP client and a store whose answers come later, when the test completes them (as the network's would). */
  private final class Pending:
    val soap = Promise[Either[ThirdPartyFailure, ThirdPartyCustomer]]()
    val store = Promise[Either[ProfileUnavailable, Option[LoyaltyProfile]]]()
    val storeAsked = AtomicInteger()
    val degraded = AtomicInteger()
    val soapClient: SoapClient = _ => soap.future
    val profiles: ProfileStore = _ =>
      storeAsked.incrementAndGet()
      store.future

  private val customer = ThirdPartyCustomer(7, "Ada", "gold", "FR")

  "enrich" should "merge the SOAP answer and the profile where each arrives, with no task on the dispatcher" in {
    val p = Pending()
    val ec = CountingContext()
    val outcome = CustomerRoutee.enrich(p.soapClient, p.profiles, 7, () => p.degraded.incrementAndGet())(using ec)
    p.storeAsked.get shouldBe 0
    p.soap.success(Right(customer))
    p.storeAsked.get shouldBe 1
    outcome.isCompleted shouldBe false
    p.store.success(Right(Some(LoyaltyProfile(1200, "silver", "2026-11-01"))))
    outcome.value.flatMap(_.toOption) shouldBe Some(CustomerOutcome.Found(EnrichedCustomer.merge(customer,
      Loyalty.of(LoyaltyProfile(1200, "silver", "2026-11-01")))))
    ec.tasks.get shouldBe 0
  }

  it should "degrade the answer when the profile cannot be read, still without a task" in {
    val p = Pending()
    val ec = CountingContext()
    val outcome = CustomerRoutee.enrich(p.soapClient, p.profiles, 7, () => p.degraded.incrementAndGet())(using ec)
    p.soap.success(Right(customer))
    p.store.success(Left(ProfileUnavailable("Redis down")))
    outcome.value.flatMap(_.toOption) shouldBe
      Some(CustomerOutcome.Found(EnrichedCustomer.merge(customer, Loyalty.Unavailable)))
    p.degraded.get shouldBe 1
    ec.tasks.get shouldBe 0
  }

  it should "make a failed call's outcome (which may log) on the dispatcher, never asking the store" in {
    val p = Pending()
    val ec = CountingContext()
    val outcome = CustomerRoutee.enrich(p.soapClient, p.profiles, 7, () => p.degraded.incrementAndGet())(using ec)
    p.soap.success(Left(ThirdPartyFailure.Fault("soap:Server boom")))
    outcome.value.flatMap(_.toOption) shouldBe
      Some(CustomerOutcome.ThirdPartyFailed("the third party answered with a fault"))
    ec.tasks.get shouldBe 1
    p.storeAsked.get shouldBe 0
  }

  it should "answer an unknown customer 'not found'" in {
    val p = Pending()
    val outcome = CustomerRoutee.enrich(p.soapClient, p.profiles, 9, () => ())(using CountingContext())
    p.soap.success(Left(ThirdPartyFailure.UnknownCustomer(9)))
    outcome.value.flatMap(_.toOption) shouldBe Some(CustomerOutcome.NotFound("customer 9 is unknown to the third party"))
  }
