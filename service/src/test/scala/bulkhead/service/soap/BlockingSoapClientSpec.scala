package bulkhead.service.soap

import bulkhead.service.config.{BreakerSettings, EnrichmentSettings, SoapSettings}
import bulkhead.service.dispatch.{Pools, WorkQueuePool, WorkQueueSettings}
import bulkhead.service.enrichment.{CircuitState, ThirdPartyFailure}
import bulkhead.service.testkit.{TestService, TestStub}
import org.apache.pekko.actor.testkit.typed.scaladsl.ActorTestKit
import org.scalatest.BeforeAndAfterAll
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import scala.concurrent.duration.*
import scala.concurrent.{Await, Future}

/** The blocking client on a real work queue against the real stub over HTTP: the queue's wait bound and the timeout. */
@Slow
class BlockingSoapClientSpec extends AnyFlatSpec with Matchers with BeforeAndAfterAll:
  private val testKit = ActorTestKit()
  private given org.apache.pekko.actor.typed.ActorSystem[?] = testKit.system
  private given scala.concurrent.ExecutionContext = testKit.system.executionContext
  override def afterAll(): Unit = testKit.shutdownTestKit()

  private def settings(endpoint: String, timeout: FiniteDuration): SoapSettings =
    EnrichmentSettings(TestService.config(Map("bulkhead.enrichment.soap.endpoint" -> endpoint))).soap
      .copy(requestTimeout = timeout)

  /**
   * A client on a work queue of one thread, behind admission of one slot whose waiters wait at most `maxWait`, as the
   * service composes them; closed (queue and client) after `body`.
   */
  private def withClient[A](endpoint: String, timeout: FiniteDuration, maxWait: FiniteDuration)(
      body: AdmittedSoapClient => A): A =
    val pool = WorkQueuePool(Pools.SoapWorkQueue, WorkQueueSettings(1, 1, 1, 1.minute))
    val scheduler = testKit.system.classicSystem.scheduler
    val client = BlockingSoapClient(settings(endpoint, timeout), pool, retryAfterMillis = 1000, scheduler)
    val admitted = AdmittedSoapClient(client, slots = 1, queue = 10, maxWait, "work-queue thread", 1000, scheduler)
    try body(admitted)
    finally
      admitted.close()
      pool.shutdownNow()

  "BlockingSoapClient" should "refuse, without sending, a call that found no thread within max-wait" in {
    TestStub.withStub("fixed:600") { stub =>
      withClient(TestStub.endpoint(stub), timeout = 3.seconds, maxWait = 200.millis) { client =>
        val started = System.nanoTime()
        val calls = (1 to 4).map(id => client.getCustomer(id).map(a => a -> (System.nanoTime() - started).nanos))
        val answers = Await.result(Future.sequence(calls), 10.seconds)
        answers.head._1.isRight shouldBe true
        answers.tail.foreach { (answer, after) =>
          answer match
            case Left(ThirdPartyFailure.Refused(reason, retryAfter)) =>
              reason should include("no SOAP work-queue thread free within 200 milliseconds")
              retryAfter shouldBe 1000L
            case other => fail(s"expected a refusal, got $other")
          after should be < 550.millis
        }
        // The refused calls were never sent: only the first reached the third party.
        Thread.sleep(1500)
        stub.metrics.answered shouldBe 1L
        // The call sent carried its deadline (X-Request-Deadline), and reached the stub before it.
        stub.metrics.deadlined shouldBe 1L
        stub.metrics.stale shouldBe 0L
      }
    }
  }

  it should "answer a timeout for a call that went out and got no answer in request-timeout" in {
    TestStub.withStub("fixed:3000") { stub =>
      withClient(TestStub.endpoint(stub), timeout = 400.millis, maxWait = 400.millis) { client =>
        val started = System.nanoTime()
        Await.result(client.getCustomer(1), 5.seconds) match
          case Left(ThirdPartyFailure.Timeout(_)) => (System.nanoTime() - started).nanos should be < 1.second
          case other => fail(s"expected a timeout, got $other")
      }
    }
  }

  it should "send a call once more on a new connection when its connection closed before any answer" in {
    val customer = bulkhead.stub.CustomerDirectory(10).find(3).get
    val answer = bulkhead.stub.SoapMessages.customer(customer)
    val server = java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress)
    val connections = java.util.concurrent.atomic.AtomicInteger()
    // The first connection is closed once its request is read, as a pooled connection the other side dropped; the
    // next one is answered.
    val serving = Thread(() =>
      try
        while true do
          val socket = server.accept()
          val in = socket.getInputStream
          val head = StringBuilder()
          while !head.endsWith("\r\n\r\n") do head.append(in.read().toChar)
          val length = head.toString.linesIterator.collectFirst {
            case l if l.toLowerCase.startsWith("content-length:") => l.drop(15).trim.toInt
          }.getOrElse(0)
          in.readNBytes(length)
          if connections.incrementAndGet() > 1 then
            socket.getOutputStream.write((s"HTTP/1.1 200 OK\r\nContent-Type: text/xml; charset=utf-8\r\n" +
              s"Content-Length: ${answer.length}\r\n\r\n").getBytes("US-ASCII") ++ answer)
          socket.close()
      catch case _: java.io.IOException => ())
    serving.setDaemon(true)
    serving.start()
    try
      withClient(s"http://127.0.0.1:${server.getLocalPort}/soap", timeout = 3.seconds, maxWait = 1.second) { client =>
        Await.result(client.getCustomer(3), 5.seconds).map(_.name) shouldBe Right(customer.name)
        connections.get shouldBe 2
      }
    finally server.close()
  }

  it should "count as a timeout the \"closed\" a body throws when the JDK client's timer cancelled the exchange" in {
    // The shape the JDK client gives when its request timer fires just after the headers came: the body stream fails
    // with IOException("closed") whose cause is the timeout. Read as unreachable, it was a 502 under load at the deadline.
    val cancelled = java.io.IOException("closed", java.net.http.HttpTimeoutException("request timed out"))
    BlockingSoapClient.isTimeout(cancelled) shouldBe true
    BlockingSoapClient.isTimeout(java.net.http.HttpTimeoutException("request timed out")) shouldBe true
    BlockingSoapClient.isTimeout(java.io.IOException("closed")) shouldBe false
    BlockingSoapClient.isTimeout(java.net.ConnectException("Connection refused")) shouldBe false
  }

  "Behind admission, a burst above the work queue" should "get refusals and leave the breaker closed" in {
    TestStub.withStub("fixed:300") { stub =>
      val pool = WorkQueuePool(Pools.SoapWorkQueue, WorkQueueSettings(1, 1, 1, 1.minute))
      val scheduler = testKit.system.classicSystem.scheduler
      val client = BlockingSoapClient(settings(TestStub.endpoint(stub), 2.seconds), pool, 1000, scheduler)
      val guarded = GuardedSoapClient(client, BreakerSettings(maxFailures = 3, 5.seconds, 1.minute), 1000)
      val admitted = AdmittedSoapClient(guarded, 1, 10, 100.millis, "work-queue thread", 1000, scheduler)
      try
        val answers = Await.result(Future.sequence((1 to 30).map(admitted.getCustomer)), 10.seconds)
        answers.count(_.isRight) should be >= 1
        answers.collect { case Left(f) => f }.foreach(_ shouldBe a[ThirdPartyFailure.Refused])
        answers.count(_.isLeft) should be >= 20
        guarded.state shouldBe CircuitState.Closed
        guarded.openings shouldBe 0L
      finally
        admitted.close()
        pool.shutdownNow()
    }
  }
