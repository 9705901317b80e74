package bulkhead.service.soap

import bulkhead.service.enrichment.{SoapClient, ThirdPartyCustomer, ThirdPartyFailure}
import bulkhead.service.testkit.HttpProbe.eventually
import org.apache.pekko.actor.testkit.typed.scaladsl.ActorTestKit
import org.scalatest.BeforeAndAfterAll
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.{ConcurrentLinkedQueue, CountDownLatch, Executors, TimeUnit}
import scala.concurrent.duration.*
import scala.concurrent.{Await, Future, Promise}
import scala.jdk.CollectionConverters.*

/** Admission in front of a scripted third party whose calls answer when the test says: slots, the wait, refusals. */
@Slow
class AdmittedSoapClientSpec extends AnyFlatSpec with Matchers with BeforeAndAfterAll:
  private val testKit = ActorTestKit()
  override def afterAll(): Unit = testKit.shutdownTestKit()
  private val scheduler = testKit.system.classicSystem.scheduler

  private type Answer = Either[ThirdPartyFailure, ThirdPartyCustomer]

  /** A third party that answers each call when `answer(id)` is called; it records the calls it received, in order. */
  private final class Held extends SoapClient:
    val received = ConcurrentLinkedQueue[Int]()
    private val pending = java.util.concurrent.ConcurrentHashMap[Int, Promise[Answer]]()
    def getCustomer(id: Int): Future[Answer] =
      received.add(id)
      pending.computeIfAbsent(id, _ => Promise()).future
    def answer(id: Int): Unit = pending.get(id).success(Right(ThirdPartyCustomer(id, "n", "s", "c")))
    def fail(id: Int): Unit = pending.get(id).failure(RuntimeException("boom"))

  private def admitted(third: SoapClient, slots: Int, queue: Int, maxWait: FiniteDuration) =
    AdmittedSoapClient(third, slots, queue, maxWait, "connection", retryAfterMillis = 1000, scheduler)

  private def refusal(f: Future[Answer]): String = Await.result(f, 5.seconds) match
    case Left(ThirdPartyFailure.Refused(detail, retryAfter)) =>
      retryAfter shouldBe 1000L
      detail
    case other => fail(s"expected a refusal, got $other")

  "AdmittedSoapClient" should "run calls up to its slots and start the waiting ones, oldest first, as slots free" in {
    val third = Held()
    val client = admitted(third, slots = 2, queue = 10, maxWait = 10.seconds)
    val calls = (1 to 5).map(id => id -> client.getCustomer(id)).toMap
    third.received.asScala.toSeq shouldBe Seq(1, 2)
    (client.inFlight, client.waiting) shouldBe (2, 3)
    third.answer(2)
    Await.result(calls(2), 5.seconds).isRight shouldBe true
    eventually()(third.received.size == 3) shouldBe true
    third.received.asScala.toSeq shouldBe Seq(1, 2, 3)
    // A call that failed frees its slot too.
    third.fail(1)
    eventually()(third.received.size == 4) shouldBe true
    third.received.asScala.toSeq shouldBe Seq(1, 2, 3, 4)
    Seq(3, 4).foreach(third.answer)
    eventually()(third.received.size == 5) shouldBe true
    third.answer(5)
    Await.result(calls(5), 5.seconds).isRight shouldBe true
    eventually()(client.inFlight == 0 && client.waiting == 0) shouldBe true
  }

  it should "refuse a call that got no slot within max-wait, and never send it" in {
    val third = Held()
    val client = admitted(third, slots = 1, queue = 10, maxWait = 200.millis)
    client.getCustomer(1)
    val waited = client.getCustomer(2)
    refusal(waited) should include("no SOAP connection free within 200 milliseconds (1 calls in flight)")
    client.waiting shouldBe 0
    // The slot that frees afterwards goes to no one: the refused call stays unsent.
    third.answer(1)
    eventually()(client.inFlight == 0) shouldBe true
    third.received.asScala.toSeq shouldBe Seq(1)
  }

  it should "refuse at once a call that finds the waiting room full, or every slot taken with max-wait 0" in {
    val third = Held()
    val full = admitted(third, slots = 1, queue = 2, maxWait = 10.seconds)
    (1 to 3).foreach(full.getCustomer)
    val refused = full.getCustomer(4)
    refused.isCompleted shouldBe true
    refusal(refused) should include("at its limit: 1 calls in flight and 2 waiting for a connection")
    val noWait = admitted(Held(), slots = 1, queue = 10, maxWait = Duration.Zero)
    noWait.getCustomer(1)
    refusal(noWait.getCustomer(2)) should include("at its limit")
  }

  it should "never run more calls than its slots, and answer every call, under calls from many threads" in {
    val running = AtomicInteger()
    val peak = AtomicInteger()
    val executor = Executors.newFixedThreadPool(4)
    // Each call holds its slot for a moment on another thread, then answers.
    val third = new SoapClient:
      def getCustomer(id: Int): Future[Answer] =
        peak.accumulateAndGet(running.incrementAndGet(), (a, b) => a max b)
        Future {
          Thread.sleep(1)
          running.decrementAndGet()
          Right(ThirdPartyCustomer(id, "n", "s", "c"))
        }(scala.concurrent.ExecutionContext.fromExecutor(executor))
    val client = admitted(third, slots = 3, queue = 10_000, maxWait = 30.seconds)
    val answers = ConcurrentLinkedQueue[Future[Answer]]()
    val callers = Executors.newFixedThreadPool(8)
    val done = CountDownLatch(8)
    try
      (1 to 8).foreach(t => callers.execute { () =>
        (1 to 250).foreach(i => answers.add(client.getCustomer(t * 1000 + i)))
        done.countDown()
      })
      done.await(30, TimeUnit.SECONDS) shouldBe true
      val all = Await.result(Future.sequence(answers.asScala.toSeq)(implicitly, testKit.system.executionContext),
        60.seconds)
      all.size shouldBe 2000
      all.forall(_.isRight) shouldBe true
      peak.get should be <= 3
      eventually()(client.inFlight == 0 && client.waiting == 0) shouldBe true
    finally
      callers.shutdownNow()
      executor.shutdownNow()
  }
