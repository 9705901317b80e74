package bulkhead.stub

import com.typesafe.config.{Config, ConfigException, ConfigFactory}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.io.InputStream
import java.net.{InetSocketAddress, Socket}
import java.nio.charset.StandardCharsets.UTF_8
import scala.concurrent.Await
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*

/** The stub's listener over real sockets: a storm of connects opened at once, every one answered. */
@Slow
class HttpListenerSpec extends AnyFlatSpec with Matchers:

  private def config(overrides: (String, Any)*): Config =
    ConfigFactory.parseMap((Map[String, Any]("port" -> 0, "latency" -> "fixed:100") ++ overrides)
      .map((k, v) => s"bulkhead.stub.$k" -> v.asInstanceOf[AnyRef]).asJava)
      .withFallback(ConfigFactory.load()).resolve()

  private def withStub[A](overrides: (String, Any)*)(body: RunningStub => A): A =
    val c = config(overrides*)
    val stub = Await.result(StubServer.start(StubSettings(c), c, s"listener-spec-${System.nanoTime()}"), 30.seconds)
    try body(stub) finally Await.ready(stub.stop(), 10.seconds)

  private val envelope = s"""<?xml version="1.0" encoding="UTF-8"?><e:Envelope xmlns:e="${SoapMessages.EnvelopeNs}" xmlns:c="${SoapMessages.CustomersNs}"><e:Body><c:GetCustomer><c:customerId>7</c:customerId></c:GetCustomer></e:Body></e:Envelope>"""
  private val call = (s"POST /soap HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/xml; charset=utf-8\r\n" +
    s"SOAPAction: \"${SoapMessages.GetCustomerAction}\"\r\nContent-Length: ${envelope.getBytes(UTF_8).length}\r\n\r\n" +
    envelope).getBytes(UTF_8)

  private def connect(port: Int): Socket =
    val socket = Socket()
    socket.connect(InetSocketAddress("127.0.0.1", port), 5000)
    socket.setSoTimeout(20000)
    socket

  private def statusLine(in: InputStream): String =
    val line = StringBuilder()
    var c = in.read()
    while c != -1 && c != '\n' do
      if c != '\r' then line += c.toChar
      c = in.read()
    line.result()

  /** Opens `n` connections before the stub answers any, sends a SOAP call on each, and returns their status lines. */
  private def storm(port: Int, n: Int): Seq[String] =
    val sockets = (1 to n).map(_ => connect(port))
    try
      sockets.foreach(_.getOutputStream.write(call))
      sockets.map(s => statusLine(s.getInputStream))
    finally sockets.foreach(_.close())

  "The stub's SOAP listener" should "answer every one of 1,000 connections opened at once" in {
    withStub() { stub =>
      stub.binding.localAddress.getPort shouldBe stub.port
      storm(stub.port, 1000).groupBy(identity).view.mapValues(_.size).toMap shouldBe Map("HTTP/1.1 200 OK" -> 1000)
    }
  }

  it should "answer a storm accepting one connection per readiness too (accept-batch 1)" in {
    withStub("accept-batch" -> 1) { stub =>
      storm(stub.port, 200).distinct shouldBe Seq("HTTP/1.1 200 OK")
    }
  }

  it should "close the connections it holds open when it stops" in {
    val c = config()
    val stub = Await.result(StubServer.start(StubSettings(c), c, s"listener-spec-${System.nanoTime()}"), 30.seconds)
    val socket = connect(stub.port)
    try
      socket.getOutputStream.write(call)
      statusLine(socket.getInputStream) shouldBe "HTTP/1.1 200 OK"
      Await.result(stub.stop(), 10.seconds)
      // The rest of the answer, then the end of the stream or a reset (Pekko aborts a connection whose reading side is
      // cancelled): either way the stub closed the kept-alive connection.
      val ended = try Iterator.continually(socket.getInputStream.read()).dropWhile(_ != -1).next() == -1
        catch case _: java.net.SocketException => true
      ended shouldBe true
    finally
      socket.close()
      Await.ready(stub.stop(), 10.seconds)
  }

  "The stub's settings" should "accept in batches of 64 by default and refuse a batch below one" in {
    StubSettings(config()).acceptBatch shouldBe 64
    val e = intercept[ConfigException](StubSettings(config("accept-batch" -> 0)))
    e.getMessage should include("accept-batch")
  }
