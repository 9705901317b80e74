package bulkhead.stub

import com.typesafe.config.{Config, ConfigException, ConfigFactory}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.net.URI
import java.net.http.{HttpClient, HttpRequest, HttpResponse}
import scala.concurrent.Await
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*

/** The stub over real sockets: where its admin endpoint listens, and how held answers follow a change of state. */
@Slow
class StubAdminSpec extends AnyFlatSpec with Matchers:
  private val http = HttpClient.newHttpClient()

  private def config(overrides: (String, Any)*): Config =
    ConfigFactory.parseMap((Map[String, Any]("bulkhead.stub.port" -> 0) ++ overrides).map((k, v) =>
      s"bulkhead.stub.$k".replace("bulkhead.stub.bulkhead.stub.", "bulkhead.stub.") -> v.asInstanceOf[AnyRef]).asJava)
      .withFallback(ConfigFactory.load()).resolve()

  private def withStub[A](overrides: (String, Any)*)(body: RunningStub => A): A =
    val c = config(overrides*)
    val stub = Await.result(StubServer.start(StubSettings(c), c, s"stub-spec-${System.nanoTime()}"), 30.seconds)
    try body(stub) finally Await.ready(stub.stop(), 10.seconds)

  private def get(port: Int, path: String) =
    http.send(HttpRequest.newBuilder(URI.create(s"http://127.0.0.1:$port$path")).build(),
      HttpResponse.BodyHandlers.ofString())

  private def post(port: Int, path: String, body: String = "", headers: Seq[(String, String)] = Nil) =
    val b = HttpRequest.newBuilder(URI.create(s"http://127.0.0.1:$port$path"))
      .POST(HttpRequest.BodyPublishers.ofString(body))
    headers.foreach((k, v) => b.header(k, v))
    http.sendAsync(b.build(), HttpResponse.BodyHandlers.ofString())

  private val request = s"""<?xml version="1.0" encoding="UTF-8"?><e:Envelope xmlns:e="${SoapMessages.EnvelopeNs}" xmlns:c="${SoapMessages.CustomersNs}"><e:Body><c:GetCustomer><c:customerId>1</c:customerId></c:GetCustomer></e:Body></e:Envelope>"""

  private def soapCall(port: Int) = post(port, "/soap", request,
    Seq("Content-Type" -> "text/xml; charset=utf-8", "SOAPAction" -> s"\"${SoapMessages.GetCustomerAction}\""))

  "The stub's admin endpoint" should "share the SOAP listener by default, on loopback" in {
    withStub() { stub =>
      stub.adminBinding shouldBe None
      get(stub.port, "/admin/state").statusCode() shouldBe 200
    }
  }

  it should "move to its own listener with admin-port, leaving the SOAP listener without admin paths" in {
    withStub("admin-port" -> 0) { stub =>
      stub.adminPort should not be stub.port
      get(stub.adminPort, "/admin/state").statusCode() shouldBe 200
      get(stub.adminPort, "/metrics").body() should include("stub_in_flight")
      get(stub.port, "/admin/state").statusCode() shouldBe 404
      get(stub.port, "/metrics").statusCode() shouldBe 404
      get(stub.port, "/health").statusCode() shouldBe 200
    }
  }

  it should "refuse to start with its admin paths on a non-loopback listener" in {
    val e = intercept[ConfigException](StubSettings(config("host" -> "0.0.0.0")))
    e.getMessage should include("admin-port")
    StubSettings(config("host" -> "0.0.0.0", "admin-port" -> 0)).admin shouldBe AdminListener.Separate("127.0.0.1", 0)
  }

  /** A SOAP call the stub holds: still unanswered half a second after it was sent. */
  private def heldCall(stub: RunningStub) =
    val pending = soapCall(stub.port)
    Thread.sleep(500)
    pending.isDone shouldBe false
    pending

  private def admin(stub: RunningStub, pathAndQuery: String): Int =
    Await.result(post(stub.port, pathAndQuery).asScala, 10.seconds).statusCode()

  "The X-Stub-Fault header" should "be ignored unless the stub allows it" in {
    val asked = Seq("Content-Type" -> "text/xml; charset=utf-8",
      "SOAPAction" -> s"\"${SoapMessages.GetCustomerAction}\"", "X-Stub-Fault" -> "server-error")
    withStub("latency" -> "fixed:1") { stub =>
      post(stub.port, "/soap", request, asked).get().statusCode() shouldBe 200
    }
    withStub("latency" -> "fixed:1", "allow-fault-header" -> true) { stub =>
      post(stub.port, "/soap", request, asked).get().statusCode() shouldBe 500
    }
  }

  "Held answers" should "be released when the latency drops below what they already waited" in {
    withStub("latency" -> "fixed:20000") { stub =>
      val pending = heldCall(stub)
      admin(stub, "/admin/latency?value=fixed:100") shouldBe 200
      val answer = pending.get(5, java.util.concurrent.TimeUnit.SECONDS)
      answer.statusCode() shouldBe 200
      answer.body() should include("GetCustomerResponse")
    }
  }

  it should "send the rest of a trickled answer at once when the trickle fault is cleared" in {
    withStub("latency" -> "fixed:1") { stub =>
      Await.result(post(stub.port, "/admin/faults?value=trickle=1.0").asScala, 10.seconds).statusCode() shouldBe 200
      val pending = soapCall(stub.port) // ~400 bytes at one every 100 ms: ~40 s while the fault lasts
      Thread.sleep(500)
      pending.isDone shouldBe false
      Await.result(post(stub.port, "/admin/faults").asScala, 10.seconds).statusCode() shouldBe 200
      val answer = pending.get(5, java.util.concurrent.TimeUnit.SECONDS)
      answer.statusCode() shouldBe 200
      answer.body() should include("GetCustomerResponse")
    }
  }

  it should "answer requests held by no-answer once the fault is cleared" in {
    withStub("latency" -> "fixed:50") { stub =>
      admin(stub, "/admin/faults?value=no-answer=1.0") shouldBe 200
      val pending = heldCall(stub)
      admin(stub, "/admin/faults") shouldBe 200
      pending.get(5, java.util.concurrent.TimeUnit.SECONDS).statusCode() shouldBe 200
    }
  }

  it should "keep the calls the hang fault took unanswered once it is cleared, and answer the calls after" in {
    withStub("latency" -> "fixed:50") { stub =>
      admin(stub, "/admin/faults?value=hang=1.0") shouldBe 200
      val pending = heldCall(stub)
      admin(stub, "/admin/faults") shouldBe 200
      soapCall(stub.port).get(5, java.util.concurrent.TimeUnit.SECONDS).statusCode() shouldBe 200
      Thread.sleep(1000)
      pending.isDone shouldBe false
      stub.metrics.inFlight shouldBe 1
      // In flight, but hung: what the lab leaves out of the calls the third party is working on.
      get(stub.port, "/metrics").body() should include("stub_calls_hung 1.0")
      pending.cancel(true)
    }
  }

  "A call's deadline header" should "be counted, and the call counted stale when it arrives past it" in {
    withStub("latency" -> "fixed:1") { stub =>
      def call(deadline: Long) = post(stub.port, "/soap", request, Seq("Content-Type" -> "text/xml; charset=utf-8",
        "SOAPAction" -> s"\"${SoapMessages.GetCustomerAction}\"", SoapMessages.DeadlineHeader -> deadline.toString))
        .get(5, java.util.concurrent.TimeUnit.SECONDS).statusCode()
      soapCall(stub.port).get(5, java.util.concurrent.TimeUnit.SECONDS).statusCode() shouldBe 200
      call(System.currentTimeMillis() + 3000) shouldBe 200
      call(System.currentTimeMillis() - 1000) shouldBe 200
      stub.metrics.deadlined shouldBe 2
      stub.metrics.stale shouldBe 1
      get(stub.port, "/metrics").body() should include("stub_calls_stale_total 1.0")
    }
  }

  extension [A](f: java.util.concurrent.CompletableFuture[A])
    def asScala: scala.concurrent.Future[A] = scala.jdk.FutureConverters.CompletionStageOps(f).asScala
