package bulkhead.service.soap

import bulkhead.service.config.{EnrichmentSettings, SoapSettings}
import bulkhead.service.enrichment.ThirdPartyFailure
import bulkhead.service.testkit.HttpProbe.eventually
import bulkhead.service.testkit.{TestService, TestStub}
import org.apache.pekko.actor.testkit.typed.scaladsl.ActorTestKit
import org.apache.pekko.http.scaladsl.ClientTransport
import bulkhead.transport.{IoLoops, SelectorClientTransport}
import org.scalatest.BeforeAndAfterAll
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.net.{InetAddress, ServerSocket, Socket}
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.atomic.AtomicInteger
import scala.concurrent.Await
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*

/** The non-blocking client on Pekko's host pool against a real socket: a call cancelled at its deadline frees its slot. */
@Slow
class NonBlockingSoapClientSpec extends AnyFlatSpec with Matchers with BeforeAndAfterAll:
  private val testKit = ActorTestKit()
  private given org.apache.pekko.actor.typed.ActorSystem[?] = testKit.system
  private val loops = IoLoops("soap-spec-io", 1, 64 * 1024, (what, e) => testKit.system.log.error(what, e),
    (thread, e) => testKit.system.log.error(s"$thread died", e))
  override def afterAll(): Unit =
    loops.shutdown()
    testKit.shutdownTestKit()

  // Both transports of the client's connections: Pekko's TCP actors and bulkhead's selector thread.
  private val transports = Seq("on Pekko's TCP" -> ClientTransport.TCP,
    "on a selector thread" -> SelectorClientTransport(loops, 64 * 1024, gatherWrites = false))

  private def settings(endpoint: String, timeout: FiniteDuration, connections: Int): SoapSettings =
    EnrichmentSettings(TestService.config(Map("bulkhead.enrichment.soap.endpoint" -> endpoint))).soap
      .copy(requestTimeout = timeout, maxConnections = connections)

  /**
   * A third party on a raw loopback socket answering customer 3: each connection it accepts is served by `serve` on a
   * thread of its own (with the connection's number, from 1).
   */
  private abstract class RawThirdParty:
    protected val customer = bulkhead.stub.CustomerDirectory(10).find(3).get
    protected val answer = bulkhead.stub.SoapMessages.customer(customer)
    val server = ServerSocket(0, 50, InetAddress.getLoopbackAddress)
    val connections = AtomicInteger()
    def name: String = customer.name
    protected def serve(socket: Socket, n: Int): Unit

    /** Reads a request head up to its blank line. */
    protected def readHead(in: java.io.InputStream): String =
      val head = StringBuilder()
      while !head.endsWith("\r\n\r\n") do
        val b = in.read()
        if b < 0 then throw java.io.EOFException()
        head.append(b.toChar)
      head.toString

    private val accepting = Thread(() =>
      try
        while true do
          val socket = server.accept()
          val n = connections.incrementAndGet()
          val t = Thread(() => serve(socket, n))
          t.setDaemon(true)
          t.start()
      catch case _: java.io.IOException => ())
    accepting.setDaemon(true)
    accepting.start()

    def endpoint: String = s"http://127.0.0.1:${server.getLocalPort}/soap"
    def close(): Unit = server.close()

  /**
   * A third party on a raw socket: it reads each connection's request, never answers the first connection (a third
   * party that hangs), answers the others, and records when a connection was closed by the client (its read ends).
   */
  private final class HangsOnce extends RawThirdParty:
    val closedByClient = ConcurrentLinkedQueue[Int]()

    protected def serve(socket: Socket, n: Int): Unit =
      try
        val in = socket.getInputStream
        while true do
          val head = readHead(in)
          val length = head.linesIterator.collectFirst {
            case l if l.toLowerCase.startsWith("content-length:") => l.drop(15).trim.toInt
          }.getOrElse(0)
          in.readNBytes(length)
          if n > 1 then
            socket.getOutputStream.write((s"HTTP/1.1 200 OK\r\nContent-Type: text/xml; charset=utf-8\r\n" +
              s"Content-Length: ${answer.length}\r\n\r\n").getBytes("US-ASCII") ++ answer)
      catch case _: java.io.IOException => closedByClient.add(n)
      finally socket.close()

  /**
   * A third party on a raw socket that sends each answer in two parts, its head and then, 100 ms later, its body: the
   * client gets the answer's head without its body, and reads the body as it streams in.
   */
  private final class AnswersInTwoParts extends RawThirdParty:
    protected def serve(socket: Socket, n: Int): Unit =
      try
        readHead(socket.getInputStream)
        val out = socket.getOutputStream
        out.write((s"HTTP/1.1 200 OK\r\nContent-Type: text/xml; charset=utf-8\r\n" +
          s"Content-Length: ${answer.length}\r\n\r\n").getBytes("US-ASCII"))
        out.flush()
        Thread.sleep(100)
        out.write(answer)
        out.flush()
      catch case _: java.io.IOException => ()
      finally socket.close()

  /**
   * A third party on a raw socket that answers two requests on each connection, the second with `Connection: close`,
   * then closes it; it records (connection, request on it) for each request.
   */
  private final class ClosesAfterTwo extends RawThirdParty:
    val requests = ConcurrentLinkedQueue[(Int, Int)]()

    protected def serve(socket: Socket, n: Int): Unit =
      try
        val in = socket.getInputStream
        for k <- 1 to 2 do
          val head = readHead(in)
          val length = head.linesIterator.collectFirst {
            case l if l.toLowerCase.startsWith("content-length:") => l.drop(15).trim.toInt
          }.getOrElse(0)
          in.readNBytes(length)
          requests.add(n -> k)
          val close = if k == 2 then "Connection: close\r\n" else ""
          socket.getOutputStream.write((s"HTTP/1.1 200 OK\r\nContent-Type: text/xml; charset=utf-8\r\n$close" +
            s"Content-Length: ${answer.length}\r\n\r\n").getBytes("US-ASCII") ++ answer)
      catch case _: java.io.IOException => ()
      finally socket.close()

  behavior of "NonBlockingSoapClient"

  for (on, transport) <- transports do
    it should s"read an answer whose body comes after its head ($on)" in {
      val third = AnswersInTwoParts()
      val client = NonBlockingSoapClient(settings(third.endpoint, 5.seconds, connections = 1),
        transport)
      try Await.result(client.getCustomer(3), 10.seconds).map(_.name) shouldBe Right(third.name)
      finally third.close()
    }

  for (on, transport) <- transports do
    it should s"close the connection of a call at its deadline, so that the next call has a slot ($on)" in {
      val third = HangsOnce()
      val client = NonBlockingSoapClient(settings(third.endpoint, 500.millis, connections = 1),
        transport)
      try
        Await.result(client.getCustomer(3), 5.seconds) match
          case Left(ThirdPartyFailure.Timeout(_)) => ()
          case other => fail(s"expected a timeout, got $other")
        // The hung call's connection was closed by the client, not left to its 60 s idle-timeout.
        eventually(tries = 100, pauseMs = 20)(third.closedByClient.asScala.toSeq == Seq(1)) shouldBe true
        // The pool's only connection slot is free: the next call opens a connection and is answered in its own time.
        Await.result(client.getCustomer(3), 5.seconds).map(_.name) shouldBe Right(third.name)
        third.connections.get shouldBe 2
      finally third.close()
    }

    it should s"close the connection of an answer still trickling in at the deadline, so the next call has a slot ($on)" in {
      TestStub.withStub("fixed:0") { stub =>
        val client = NonBlockingSoapClient(settings(TestStub.endpoint(stub), 500.millis, connections = 1),
          transport)
        // The stub sends its ~400 bytes one every 100 ms: ~40 s on the only connection, unless the client closes it.
        TestStub.faults(stub, "trickle=1")
        Await.result(client.getCustomer(3), 5.seconds) match
          case Left(ThirdPartyFailure.Timeout(_)) => ()
          case other => fail(s"expected a timeout, got $other")
        TestStub.faults(stub, "")
        Await.result(client.getCustomer(3), 5.seconds).map(_.id) shouldBe Right(3)
        // Each call carried its deadline (X-Request-Deadline), and reached the stub before it.
        stub.metrics.deadlined shouldBe 2L
        stub.metrics.stale shouldBe 0L
      }
    }

  for (on, transport) <- transports do
    it should s"carry the next call on the same connection, and open another when the third party closes it ($on)" in {
      val third = ClosesAfterTwo()
      val client = NonBlockingSoapClient(settings(third.endpoint, 5.seconds, connections = 1), transport)
      try
        (1 to 3).foreach(_ => Await.result(client.getCustomer(3), 5.seconds).map(_.name) shouldBe Right(third.name))
        // Calls 1 and 2 on the first connection (closed by the third party after the second), call 3 on a new one.
        third.connections.get shouldBe 2
        third.requests.asScala.toSeq shouldBe Seq(1 -> 1, 1 -> 2, 2 -> 1)
        eventually(tries = 100, pauseMs = 20)(client.openConnections == 1) shouldBe true
      finally
        client.close()
        third.close()
    }
