package bulkhead.transport

import com.typesafe.config.ConfigFactory
import org.apache.pekko.actor.ActorSystem
import org.apache.pekko.http.scaladsl.model.{HttpRequest, HttpResponse, StatusCodes}
import org.apache.pekko.http.scaladsl.settings.{ClientConnectionSettings, ConnectionPoolSettings}
import org.apache.pekko.http.scaladsl.{ConnectionContext, Http}
import org.apache.pekko.stream.scaladsl.{Flow, Keep, Sink, Source, Tcp}
import org.apache.pekko.stream.testkit.{TestPublisher, TestSubscriber}
import org.apache.pekko.stream.testkit.scaladsl.TestSink
import org.apache.pekko.stream.{BindFailedException, StreamTcpException}
import org.apache.pekko.util.ByteString
import org.apache.pekko.{Done, NotUsed}
import org.scalatest.BeforeAndAfterAll
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.net.{ConnectException, InetSocketAddress, Socket}
import java.security.KeyStore
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.{Executors, LinkedBlockingQueue, TimeUnit}
import javax.net.ssl.{KeyManagerFactory, SSLContext, TrustManagerFactory}
import scala.concurrent.duration.*
import scala.concurrent.{Await, ExecutionContext, Future, Promise}
import scala.util.Using

/**
 * What a TCP transport under Pekko HTTP must do, run against bulkhead's selector transport ([[SelectorTcpSpec]]) and
 * Pekko's own ([[PekkoTcpSpec]]): the close-ordering cases of Pekko's `TcpSpec` (stream-tests, Pekko 1.2.1), each for an
 * outgoing connection and for an accepted one against a plain socket, its listener cases, and what a server's
 * transport owes beyond them (connections reset mid-write, churn, back-pressure on accept, unbinding with
 * connections open, connect failures, Pekko HTTP's client over it with TLS).
 */
abstract class TcpContract(transportFor: ActorSystem => TransportUnderTest)
    extends AnyFlatSpec with Matchers with BeforeAndAfterAll:
  protected given system: ActorSystem = ActorSystem(getClass.getSimpleName,
    ConfigFactory.parseString(TransportUnderTest.Config).withFallback(ConfigFactory.load()))
  private given ExecutionContext = system.dispatcher
  protected val transport: TransportUnderTest = transportFor(system)
  private val data = ByteString(1, 2, 3, 4, 5)

  // Its actor system exists from construction: stopped even when the quick tier runs none of its cases.
  override val invokeBeforeAllAndAfterAllEvenIfNoTestsAreExpected = true

  override def afterAll(): Unit =
    transport.shutdown()
    Await.ready(system.terminate(), 10.seconds)

  /** The upstream of a connection: what the test writes. */
  private final class Writer:
    val probe: TestPublisher.Probe[ByteString] = TestPublisher.probe[ByteString]()
    private var demand = 0L
    def write(bytes: ByteString): Unit =
      while demand == 0 do demand += probe.expectRequest()
      probe.sendNext(bytes)
      demand -= 1
    def close(): Unit = probe.sendComplete()

  /** The downstream of a connection: what the test reads. */
  private final class Reader:
    val probe: TestSubscriber.Probe[ByteString] = TestSubscriber.probe[ByteString]()
    def read(n: Int): ByteString =
      var got = ByteString.empty
      while got.length < n do
        probe.request(1)
        got ++= probe.expectNext(5.seconds)
      got

  private enum Side(val label: String):
    case Outgoing extends Side("an outgoing connection")
    case Incoming extends Side("an accepted connection")

  // One listener (half-closing, as an outgoing connection by default) for every accepted-side case.
  private val accepted = LinkedBlockingQueue[Tcp.IncomingConnection]()
  private lazy val halfClosing: Tcp.ServerBinding =
    Await.result(transport.bind(halfClose = true).to(Sink.foreach(accepted.put)).run(), 10.seconds)

  /** A connection of the transport with probes at its ends, and the plain socket at its other end. */
  private def connected(side: Side): (Writer, Reader, RawConnection) =
    val writer = Writer()
    val reader = Reader()
    def run(flow: Flow[ByteString, ByteString, ?]): Unit =
      Source.fromPublisher(writer.probe).via(flow).to(Sink.fromSubscriber(reader.probe)).run()
    side match
      case Side.Outgoing =>
        val server = RawServer()
        try
          run(transport.outgoing(server.address))
          (writer, reader, server.accept())
        finally server.close()
      case Side.Incoming =>
        accepted.clear()
        val peer = RawConnection.to(halfClosing.localAddress.getPort)
        run(accepted.poll(10, TimeUnit.SECONDS).flow)
        (writer, reader, peer)

  /** A case of Pekko's TcpSpec on both sides: the stream's end is its "client", the plain socket its "server". */
  private def closing(behaviour: String)(body: (Writer, Reader, RawConnection) => Unit): Unit =
    for side <- Side.values do
      it should s"$behaviour (${side.label})" in {
        val (writer, reader, peer) = connected(side)
        try body(writer, reader, peer)
        finally peer.close()
      }

  behavior of transport.name

  // --- Pekko's TcpSpec, "Outgoing TCP stream", close ordering -------------------------------------------------------

  closing("work when the stream closes its writing side, then the peer closes its own") { (w, r, peer) =>
    w.write(data)
    peer.read(5) shouldBe data
    w.close()
    peer.expectEnd() shouldBe true // the stream's FIN; the peer can still write
    peer.write(data)
    r.read(5) shouldBe data
    peer.closeWrite()
    r.probe.expectComplete()
    peer.expectReset() shouldBe true // both sides done: the transport closed its socket
  }

  closing("work when the peer closes its writing side, then the stream closes its own") { (w, r, peer) =>
    peer.write(data)
    r.read(5) shouldBe data
    peer.closeWrite()
    r.probe.expectComplete()
    w.write(data)
    peer.read(5) shouldBe data
    w.close()
    peer.expectEnd() shouldBe true
    peer.expectReset() shouldBe true
  }

  closing("work when the stream closes its reading side, then its writing side") { (w, r, peer) =>
    peer.write(data)
    r.read(5) shouldBe data
    r.probe.cancel()
    w.write(data) // there is no closing of the reading side in TCP: it still writes
    peer.read(5) shouldBe data
    w.close()
    peer.expectReset() shouldBe true // the peer's writes find the socket closed
  }

  closing("work when the stream closes its writing side, then its reading side") { (w, r, peer) =>
    w.write(data)
    peer.read(5) shouldBe data
    w.close()
    peer.expectEnd() shouldBe true
    peer.write(data)
    r.read(5) shouldBe data
    r.probe.cancel()
    peer.expectReset() shouldBe true
  }

  closing("work when the stream closes its reading side, the peer its writing side, then the stream its writing " +
    "side") { (w, r, peer) =>
    peer.write(data)
    r.read(5) shouldBe data
    r.probe.cancel()
    w.write(data)
    peer.read(5) shouldBe data
    peer.closeWrite()
    w.close()
    peer.expectEnd() shouldBe true
  }

  closing("shut everything down, with a reset, when the stream's upstream fails") { (w, r, peer) =>
    peer.write(data)
    r.read(5) shouldBe data
    w.write(data)
    peer.read(5) shouldBe data
    w.probe.sendError(IllegalStateException("test"))
    r.probe.expectError()
    peer.expectReset() shouldBe true
  }

  closing("shut everything down, with a reset, when the upstream fails after the peer closed its writing side") {
    (w, r, peer) =>
      peer.write(data)
      r.read(5) shouldBe data
      peer.closeWrite()
      r.probe.expectComplete()
      w.write(data)
      peer.read(5) shouldBe data
      w.probe.sendError(IllegalStateException("test"))
      peer.expectReset() shouldBe true
  }

  closing("fail both of its streams when the peer aborts the connection") { (w, r, peer) =>
    r.probe.ensureSubscription()
    peer.abort()
    r.probe.expectError() shouldBe a[StreamTcpException]
    w.probe.expectCancellation()
  }

  // --- Pekko's TcpSpec, half- and full-close, echo ------------------------------------------------------------------

  it should "half-close properly by default: an early answer reaches a client whose request side ended" in {
    val writeButDontRead = Flow.fromSinkAndSource(Sink.cancelled[ByteString], Source.single(ByteString("Early response")))
    val binding = Await.result(transport.bind(halfClose = true)
      .to(Sink.foreach(_.flow.join(writeButDontRead).run())).run(), 10.seconds)
    try
      val result = Source.empty[ByteString].via(transport.outgoing(binding.localAddress))
        .runFold(ByteString.empty)(_ ++ _)
      Await.result(result, 10.seconds) shouldBe ByteString("Early response")
    finally binding.unbind()
  }

  it should "full-close if requested: the server's answer, then its close, end the client's reading" in {
    val writeButIgnoreRead =
      Flow.fromSinkAndSourceMat(Sink.ignore, Source.single(ByteString("Early response")))(Keep.right)
    val binding = Await.result(transport.bind(halfClose = false)
      .to(Sink.foreach(_.flow.join(writeButIgnoreRead).run())).run(), 10.seconds)
    try
      val (promise, result) = Source.maybe[ByteString].via(transport.outgoing(binding.localAddress))
        .toMat(Sink.fold(ByteString.empty)(_ ++ _))(Keep.both).run()
      Await.result(result, 10.seconds) shouldBe ByteString("Early response")
      promise.trySuccess(None)
    finally binding.unbind()
  }

  it should "echo even when the server is in full-close mode" in {
    val binding = Await.result(transport.bind(halfClose = false)
      .to(Sink.foreach(_.flow.join(Flow[ByteString]).run())).run(), 10.seconds)
    try
      val total = Source(List.fill(1000)(ByteString(0))).via(transport.outgoing(binding.localAddress))
        .runFold(0)(_ + _.size)
      Await.result(total, 10.seconds) shouldBe 1000
    finally binding.unbind()
  }

  // --- Pekko's TcpSpec, "TCP listen stream" -------------------------------------------------------------------------

  it should "keep serving a connection accepted before its connection stream was cancelled" in {
    val serving = Promise[Tcp.IncomingConnection]()
    val binding = Await.result(transport.bind(halfClose = false).take(1)
      .to(Sink.foreach(serving.trySuccess)).run(), 10.seconds)
    val port = binding.localAddress.getPort
    val total = Source(List.fill(100)(ByteString(0))).via(transport.outgoing(binding.localAddress))
      .runFold(0)(_ + _.size)
    val connection = Await.result(serving.future, 10.seconds)
    // The listener is gone once the stream of connections is cancelled...
    OsProbes.within(5)(Using(Socket())(_.connect(InetSocketAddress("127.0.0.1", port), 250)).isFailure) shouldBe true
    // ...and the connection it accepted is still served.
    connection.flow.join(Flow[ByteString]).run()
    Await.result(total, 10.seconds) shouldBe 100
  }

  it should "bind and unbind correctly: a second bind of the port fails, naming it, and a bind after unbind works" in {
    val first = Await.result(transport.bind(halfClose = false).to(Sink.ignore).run(), 10.seconds)
    val port = first.localAddress.getPort
    val second = transport.bind(halfClose = false, port = port).to(Sink.ignore).run()
    val failure = Await.ready(second, 10.seconds).value.get.failed.get
    failure shouldBe a[BindFailedException]
    failure.getMessage should include(port.toString)
    Await.result(first.unbind(), 10.seconds)
    Await.result(first.whenUnbound, 10.seconds) shouldBe Done
    val again = Await.result(transport.bind(halfClose = false, port = port).to(Sink.ignore).run(), 10.seconds)
    again.localAddress.getPort shouldBe port
    Await.result(again.unbind(), 10.seconds)
  }

  it should "free the port by the time whenUnbound completes, every time" in {
    // A port closed while its key is still registered stays taken until the selector's next selection.
    val first = Await.result(transport.bind(halfClose = false).to(Sink.ignore).run(), 10.seconds)
    val port = first.localAddress.getPort
    Await.result(first.unbind(), 10.seconds)
    Await.result(first.whenUnbound, 10.seconds)
    for round <- 1 to 200 do
      withClue(s"bind number $round of port $port: ") {
        val binding = Await.result(transport.bind(halfClose = false, port = port).to(Sink.ignore).run(), 10.seconds)
        Await.result(binding.unbind(), 10.seconds)
        Await.result(binding.whenUnbound, 10.seconds) shouldBe Done
      }
  }

  it should "close an accepted connection whose flow nobody materialises, after its register timeout" in {
    val count = AtomicInteger()
    val firstServed = Promise[Unit]()
    val binding = Await.result(transport.bind(halfClose = false)
      .mapAsync(2) { incoming =>
        if count.incrementAndGet() == 1 then
          firstServed.trySuccess(())
          incoming.flow.join(Flow[ByteString]).run()
          Future.successful(Done)
        else Future.successful(Done) // never materialised
      }.to(Sink.ignore).run(), 10.seconds)
    try
      val first = Source(List(ByteString(23))).concat(Source.maybe).via(transport.outgoing(binding.localAddress))
        .take(1).runWith(Sink.seq)
      Await.result(firstServed.future, 10.seconds)
      Await.result(first, 10.seconds) shouldBe Seq(ByteString(23))
      val ignored = Source(List(ByteString(67))).via(transport.outgoing(binding.localAddress)).runWith(Sink.seq)
      Await.ready(ignored, 10.seconds).value.get.failed.get shouldBe a[StreamTcpException]
    finally binding.unbind()
  }

  // --- What a server's transport owes beyond Pekko's TcpSpec --------------------------------------------------------

  it should "keep serving a kept-alive connection after unbind, and refuse new ones" in {
    val binding = Await.result(transport.bind(halfClose = false)
      .to(Sink.foreach(_.flow.join(Flow[ByteString]).run())).run(), 10.seconds)
    val port = binding.localAddress.getPort
    val kept = RawConnection.to(port)
    try
      kept.write(data)
      kept.read(5) shouldBe data
      Await.result(binding.unbind(), 10.seconds)
      a[ConnectException] should be thrownBy RawConnection.to(port)
      kept.write(data)
      kept.read(5) shouldBe data
    finally kept.close()
  }

  it should "accept no more connections than downstream asked for, and what it holds beyond, leaving the rest in the " +
    "kernel's queue" in {
    val batch = if transport.heldBeyondDemand(4) > 0 then 4 else 1
    val held = transport.heldBeyondDemand(batch)
    val (bound, probe) = transport.bind(halfClose = false, batch = batch)
      .toMat(TestSink[Tcp.IncomingConnection]())(Keep.both).run()
    val port = Await.result(bound, 10.seconds).localAddress.getPort
    val sockets = (1 to 20).map(_ => RawConnection.to(port))
    try
      OsProbes.within(5)(OsProbes.acceptQueue(port) == 20 - held) shouldBe true
      probe.request(3)
      (1 to 3).foreach(_ => probe.expectNext(10.seconds))
      OsProbes.within(5)(OsProbes.acceptQueue(port) == 20 - 3 - held) shouldBe true
      probe.expectNoMessage(200.millis)
      OsProbes.acceptQueue(port) shouldBe 20 - 3 - held
    finally
      sockets.foreach(_.close())
      probe.cancel()
  }

  it should "fail an answer's stream, and free its descriptor, when the peer resets in the middle of 16 MB" in {
    val chunk = ByteString(Array.fill[Byte](256 * 1024)(7))
    val ended = Promise[Future[Done]]()
    val binding = Await.result(transport.bind(halfClose = false).to(Sink.foreach { c =>
      // The answer streams 16 MB; its input stays open, as a server's does until the client ends.
      ended.trySuccess(c.flow.watchTermination()(Keep.right)
        .join(Flow[ByteString].flatMapConcat(_ => Source(List.fill(64)(chunk)))).run())
    }).run(), 10.seconds)
    try
      val baseline = OsProbes.openDescriptors()
      val peer = RawConnection.to(binding.localAddress.getPort)
      peer.write(ByteString("x"))
      peer.read(1024 * 1024).length shouldBe 1024 * 1024 // the answer is on its way, and more than the socket holds
      peer.abort()
      val done = Await.result(ended.future, 10.seconds)
      Await.ready(done, 5.seconds).value.get.isFailure shouldBe true
      OsProbes.within(5)(OsProbes.openDescriptors() <= baseline) shouldBe true
    finally binding.unbind()
  }

  it should "return to its descriptors after 10,000 connections opened and closed by 8 threads" in {
    val batch = if transport.heldBeyondDemand(16) > 0 then 16 else 1
    val binding = Await.result(transport.bind(halfClose = false, batch = batch)
      .mapAsyncUnordered(1024)(_.flow.watchTermination()(Keep.right).join(Flow[ByteString]).run()
        .recover { case _ => Done })
      .to(Sink.ignore).run(), 10.seconds)
    val port = binding.localAddress.getPort
    val baseline = OsProbes.openDescriptors()
    val threads = Executors.newFixedThreadPool(8)
    try
      val cycles: Runnable = () =>
        (1 to 1250).foreach(_ => RawConnection.to(port).close())
      val done = (1 to 8).map(_ => threads.submit(cycles))
      done.foreach(_.get(60, TimeUnit.SECONDS))
      OsProbes.within(5)(OsProbes.openDescriptors() <= baseline) shouldBe true
      // And it still serves.
      val last = RawConnection.to(port)
      try
        last.write(data)
        last.read(5) shouldBe data
      finally last.close()
    finally
      threads.shutdownNow()
      binding.unbind()
  }

  it should "fail a connect to a port nobody listens on, saying it was refused" in {
    val port = Using.resource(java.net.ServerSocket(0))(_.getLocalPort)
    val (local, done) = Source.maybe[ByteString]
      .viaMat(transport.outgoing(InetSocketAddress("127.0.0.1", port)))(Keep.right).toMat(Sink.ignore)(Keep.both).run()
    val failure = Await.ready(local, 10.seconds).value.get.failed.get
    failure shouldBe a[StreamTcpException]
    failure.getMessage should include("Connection refused")
    Await.ready(done, 10.seconds).value.get.isFailure shouldBe true
  }

  it should "fail a connect that the peer does not take within its timeout, saying it timed out" in {
    // A listener whose accept queue is full drops further connects: they never complete.
    val full = RawServer(backlog = 1)
    val queued = (1 to 2).map(_ => RawConnection.to(full.address.getPort))
    try
      val (local, done) = Source.maybe[ByteString]
        .viaMat(transport.outgoing(full.address, connectTimeout = 300.millis))(Keep.right)
        .toMat(Sink.ignore)(Keep.both).run()
      val failure = Await.ready(local, 10.seconds).value.get.failed.get
      failure shouldBe a[StreamTcpException]
      failure.getMessage.toLowerCase should include("timeout")
      Await.ready(done, 10.seconds).value.get.isFailure shouldBe true
    finally
      queued.foreach(_.close())
      full.close()
  }

  // --- Pekko HTTP's client on the transport -------------------------------------------------------------------------

  private lazy val tls: SSLContext =
    val password = "bulkhead".toCharArray
    val keys = KeyStore.getInstance("PKCS12")
    Using.resource(getClass.getResourceAsStream("/self-signed-127.0.0.1.p12"))(keys.load(_, password))
    val keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm)
    keyManagers.init(keys, password)
    val trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm)
    trust.init(keys)
    val context = SSLContext.getInstance("TLS")
    context.init(keyManagers.getKeyManagers, trust.getTrustManagers, null)
    context

  private val hello: HttpRequest => Future[HttpResponse] = _ => Future.successful(HttpResponse(entity = "hello"))

  it should "carry Pekko HTTP's client over HTTPS to an IP address with a self-signed certificate" in {
    val server = Await.result(Http().newServerAt("127.0.0.1", 0)
      .enableHttps(ConnectionContext.httpsServer(tls)).bind(hello), 10.seconds)
    try
      val settings = ConnectionPoolSettings(system).withTransport(transport.clientTransport)
      val response = Await.result(Http().singleRequest(
        HttpRequest(uri = s"https://127.0.0.1:${server.localAddress.getPort}/"),
        connectionContext = ConnectionContext.httpsClient(tls), settings = settings), 10.seconds)
      response.status shouldBe StatusCodes.OK
      Await.result(response.entity.toStrict(5.seconds), 10.seconds).data.utf8String shouldBe "hello"
    finally Await.ready(server.terminate(1.second), 10.seconds)
  }

  it should "answer a single request whose connection half-closes after it, to a host given by name" in {
    val server = Await.result(Http().newServerAt("127.0.0.1", 0).bind(hello), 10.seconds)
    try
      val settings = ClientConnectionSettings(system).withTransport(transport.clientTransport)
      val response = Source.single(HttpRequest(uri = "/"))
        .via(Http().outgoingConnection("localhost", server.localAddress.getPort, settings = settings))
        .runWith(Sink.head)
      Await.result(response, 10.seconds).status shouldBe StatusCodes.OK
    finally Await.ready(server.terminate(1.second), 10.seconds)
  }

/** The transport contract on bulkhead's selector threads. */
@Slow
class SelectorTcpSpec extends TcpContract(system =>
  TransportUnderTest.Selector((what, e) => system.log.error(e, what)))

/** The same contract on Pekko's own TCP transport, the fallback (`server.transport = pekko`). */
@Slow
class PekkoTcpSpec extends TcpContract(_ => TransportUnderTest.Pekko)
