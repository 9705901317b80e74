package bulkhead.service.soap

import bulkhead.service.testkit.HttpProbe.eventually
import bulkhead.service.testkit.TestStub
import org.apache.pekko.actor.testkit.typed.scaladsl.ActorTestKit
import org.apache.pekko.http.scaladsl.model.*
import org.apache.pekko.http.scaladsl.model.headers.RawHeader
import org.apache.pekko.http.scaladsl.settings.ClientConnectionSettings
import org.scalatest.BeforeAndAfterAll
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.io.IOException
import scala.concurrent.Await
import scala.concurrent.duration.*

/** The SOAP client's own connections against the real stub over loopback: reused while whole, gone once aborted. */
class SoapConnectionsSpec extends AnyFlatSpec with Matchers with BeforeAndAfterAll:
  private val testKit = ActorTestKit()
  private given org.apache.pekko.actor.typed.ActorSystem[?] = testKit.system
  override def afterAll(): Unit = testKit.shutdownTestKit()

  private def request(id: Int): HttpRequest =
    HttpRequest(HttpMethods.POST, Uri("/soap"), List(RawHeader("SOAPAction", SoapProtocol.SoapAction)),
      HttpEntity.Strict(ContentType.parse(SoapProtocol.ContentType).toOption.get,
        org.apache.pekko.util.ByteString(SoapProtocol.getCustomerRequest(id))))

  private def connections(port: Int) =
    SoapConnections("127.0.0.1", port, ClientConnectionSettings(testKit.system.classicSystem))

  "SoapConnections" should "carry one call after another on the same connection once each answer was read whole" in
    TestStub.withStub("fixed:0") { stub =>
      val pool = connections(stub.port)
      try
        val first = pool.acquire()
        val answer = Await.result(first.send(request(3)), 5.seconds)
        answer.status shouldBe StatusCodes.OK
        Await.result(answer.entity.toStrict(5.seconds), 5.seconds).data.utf8String should include("GetCustomerResponse")
        pool.release(first)
        val second = pool.acquire()
        (second eq first) shouldBe true
        Await.result(second.send(request(4)), 5.seconds).status shouldBe StatusCodes.OK
        pool.open shouldBe 1
      finally pool.close()
    }

  it should "fail an aborted connection's call at once, close it, and hand out a new one after" in
    TestStub.withStub("fixed:5000") { stub =>
      val pool = connections(stub.port)
      try
        val hung = pool.acquire()
        val call = hung.send(request(3))
        eventually()(pool.open == 1) shouldBe true
        val why = IOException("deadline")
        hung.abort(why)
        (the[IOException] thrownBy Await.result(call, 2.seconds)).getMessage should include("deadline")
        hung.alive shouldBe false
        eventually()(pool.open == 0) shouldBe true
        // Given back or not, an aborted connection is never handed out again.
        pool.release(hung)
        val next = pool.acquire()
        (next eq hung) shouldBe false
        next.alive shouldBe true
      finally pool.close()
    }
