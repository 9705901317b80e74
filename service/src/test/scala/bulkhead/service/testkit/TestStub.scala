package bulkhead.service.testkit

import bulkhead.stub.{RunningStub, StubServer, StubSettings}
import com.typesafe.config.{ConfigFactory, ConfigValueFactory}

import java.net.URI
import java.net.http.{HttpClient, HttpRequest, HttpResponse}
import java.net.URLEncoder
import java.nio.charset.StandardCharsets.UTF_8
import scala.concurrent.Await
import scala.concurrent.duration.*

/** The real SOAP stub in this JVM on a free loopback port, driven over HTTP through its admin endpoint. */
object TestStub:
  def withStub[A](latency: String = "fixed:50")(body: RunningStub => A): A =
    val config = ConfigFactory.empty()
      .withValue("bulkhead.stub.port", ConfigValueFactory.fromAnyRef(0))
      .withValue("bulkhead.stub.latency", ConfigValueFactory.fromAnyRef(latency))
      .withValue("bulkhead.stub.no-answer-hold", ConfigValueFactory.fromAnyRef("20s"))
      .withFallback(ConfigFactory.load()).resolve()
    val stub = Await.result(StubServer.start(StubSettings(config), config), 30.seconds)
    try body(stub)
    finally Await.ready(stub.stop(), 30.seconds)

  def endpoint(stub: RunningStub): String = s"http://127.0.0.1:${stub.port}/soap"

  private val client = HttpClient.newHttpClient()

  private def admin(stub: RunningStub, what: String, value: String): Unit =
    val uri = URI.create(s"http://127.0.0.1:${stub.port}/admin/$what?value=${URLEncoder.encode(value, UTF_8)}")
    val r = client.send(HttpRequest.newBuilder(uri).POST(HttpRequest.BodyPublishers.noBody()).build(),
      HttpResponse.BodyHandlers.ofString())
    require(r.statusCode() == 200, s"stub admin $what=$value: ${r.statusCode()} ${r.body()}")

  /** Sets the stub's faults over its admin endpoint, e.g. "server-error=1"; "" clears them. */
  def faults(stub: RunningStub, plan: String): Unit = admin(stub, "faults", plan)

  def latency(stub: RunningStub, value: String): Unit = admin(stub, "latency", value)
