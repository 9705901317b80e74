package bulkhead.transport

import com.typesafe.config.ConfigFactory
import org.apache.pekko.actor.ActorSystem
import org.apache.pekko.stream.scaladsl.{Flow, Keep, Sink, Source, Tcp}
import org.apache.pekko.stream.testkit.scaladsl.TestSink
import org.apache.pekko.stream.{ActorAttributes, Materializer, StreamTcpException}
import org.apache.pekko.util.ByteString
import org.scalatest.BeforeAndAfterAll
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.lang.management.ManagementFactory
import java.net.InetSocketAddress
import java.util.concurrent.{CountDownLatch, LinkedBlockingQueue, TimeUnit}
import scala.concurrent.duration.*
import scala.concurrent.{Await, ExecutionContext, Future, Promise}

/**
 * What the selector transport does beyond the contract both transports keep ([[TcpContract]]): reading and writing
 * under back-pressure, its bound on what a connection holds, an incoming flow claimed once, its accept pausing while
 * the server's dispatcher is behind, and an outgoing connection's gathered writes.
 */
@Slow
class SelectorTransportSpec extends AnyFlatSpec with Matchers with BeforeAndAfterAll:
  // A dispatcher of one thread that a case can block, to stand for a server's dispatcher held by blocking work.
  private given system: ActorSystem = ActorSystem("selector-transport", ConfigFactory.parseString(
    TransportUnderTest.Config + """
      one-thread { type = Dispatcher, executor = "thread-pool-executor", thread-pool-executor.fixed-pool-size = 1 }
      """).withFallback(ConfigFactory.load()))
  private given ExecutionContext = system.dispatcher
  private val loops = IoLoops("selector-transport-io", 2, 64 * 1024, (what, e) => system.log.error(e, what),
    (thread, e) => system.log.error(e, s"$thread died"))

  // Its actor system exists from construction: stopped even when the quick tier runs none of its cases.
  override val invokeBeforeAllAndAfterAllEvenIfNoTestsAreExpected = true

  override def afterAll(): Unit =
    loops.shutdown()
    Await.ready(system.terminate(), 10.seconds)

  private def bind(batch: Int = 16, readAhead: Int = 64 * 1024, pauseAbove: Duration = Duration.Inf) =
    SelectorBindSource.bind(loops, "127.0.0.1", 0, backlog = 4096, options = Nil, halfClose = false, batch = batch,
      readAhead = readAhead, registerTimeout = 1.second, pauseAbove = pauseAbove)

  private def serve(handler: Tcp.IncomingConnection => Future[?], batch: Int = 16, readAhead: Int = 64 * 1024)
      : Tcp.ServerBinding =
    Await.result(bind(batch, readAhead).mapAsyncUnordered(10_000)(handler).to(Sink.ignore).run(), 10.seconds)

  private def joined(flow: Flow[ByteString, ByteString, ?]): Tcp.IncomingConnection => Future[?] =
    c => c.flow.watchTermination()(Keep.right).join(flow).run()

  private def pattern(n: Int): Array[Byte] = Array.tabulate(n)(i => (i % 251).toByte)

  "The selector transport" should "serve every one of many connections opened at once" in {
    val binding = serve(joined(Flow[ByteString]), batch = 8)
    val sockets = (1 to 300).map(_ => RawConnection.to(binding.localAddress.getPort))
    try
      sockets.zipWithIndex.foreach((s, i) => s.write(ByteString(s"hello $i\n")))
      sockets.zipWithIndex.foreach((s, i) => s.read(s"hello $i\n".length).utf8String shouldBe s"hello $i\n")
    finally sockets.foreach(_.close())
    Await.result(binding.unbind(), 10.seconds)
  }

  it should "write an answer larger than the socket takes at once, whole and in order, to a slow reader" in {
    val size = 16 << 20
    val payload = pattern(size)
    val chunks = payload.grouped(256 * 1024).map(ByteString(_)).toList
    // Its input stays open until the client's end: cancelling it would close the connection (as Pekko's does).
    val binding = serve(joined(Flow[ByteString].mapConcat(_ => chunks)))
    val socket = RawConnection.to(binding.localAddress.getPort)
    try
      socket.write(ByteString("x"))
      socket.closeWrite()
      val got = socket.read(size + 1)
      got.length shouldBe size
      java.util.Arrays.equals(got.toArray, payload) shouldBe true
    finally socket.close()
    Await.result(binding.unbind(), 10.seconds)
  }

  it should "read an upload larger than its read-ahead whole while the stream takes it slowly" in {
    val size = 4 << 20
    val payload = pattern(size)
    val got = Promise[ByteString]()
    val binding = serve(
      { c =>
        // Takes 64 KiB chunks with a pause: the loop must stop reading at the read-ahead and start again.
        c.flow.join(Flow[ByteString].throttle(1, 2.millis).fold(ByteString.empty)(_ ++ _)
          .map { all => got.trySuccess(all); ByteString("done") }).run()
        got.future
      }, readAhead = 16 * 1024)
    val socket = RawConnection.to(binding.localAddress.getPort)
    try
      socket.write(ByteString(payload))
      socket.closeWrite()
      socket.read(10).utf8String shouldBe "done"
      val all = Await.result(got.future, 30.seconds).toArray
      java.util.Arrays.equals(all, payload) shouldBe true
    finally socket.close()
    Await.result(binding.unbind(), 10.seconds)
  }

  it should "hold at most its read-ahead for each of 2,000 connections whose streams never pull, and read on when " +
    "they do" in {
    val readAhead = 16 * 1024
    val sent = 48 * 1024
    val pulls = LinkedBlockingQueue[org.apache.pekko.stream.testkit.TestSubscriber.Probe[ByteString]]()
    val binding = Await.result(bind(batch = 64, readAhead = readAhead).to(Sink.foreach { c =>
      val probe = Source.maybe[ByteString].via(c.flow).runWith(TestSink[ByteString]())
      pulls.put(probe)
    }).run(), 10.seconds)
    val heap = ManagementFactory.getMemoryMXBean
    def used(): Long =
      System.gc()
      heap.getHeapMemoryUsage.getUsed
    val before = used()
    val clients = (1 to 2000).map(_ => RawConnection.to(binding.localAddress.getPort))
    try
      clients.foreach(_.write(ByteString(pattern(sent))))
      OsProbes.within(10)(pulls.size == 2000) shouldBe true
      Thread.sleep(300) // the loop reads what it may; nothing signals when it has stopped
      val held = used() - before
      // The read-ahead of each, and what a connection's stream and sockets cost besides, far from the 48 KiB sent.
      held should be < 2000L * (readAhead + 8 * 1024)
      // Pulled, every stream gets every byte.
      val probes = Iterator.continually(pulls.poll()).takeWhile(_ != null).toSeq
      probes.take(50).foreach { p =>
        var got = 0
        while got < sent do
          p.request(1)
          got += p.expectNext(5.seconds).length
        got shouldBe sent
      }
      probes.foreach(_.cancel())
    finally clients.foreach(_.close())
    Await.result(binding.unbind(), 10.seconds)
  }

  it should "refuse a second materialisation of an incoming connection's flow" in {
    val second = Promise[Throwable]()
    val binding = serve { c =>
      val first = c.flow.join(Flow[ByteString]).run()
      second.tryComplete(scala.util.Try(c.flow.join(Flow[ByteString]).run()).failed)
      Future.successful(first)
    }
    val socket = RawConnection.to(binding.localAddress.getPort)
    try
      val refused = Await.result(second.future, 10.seconds)
      refused shouldBe an[IllegalStateException]
      refused.getMessage should include("twice")
      socket.write(ByteString("still served"))
      socket.read(12).utf8String shouldBe "still served"
    finally socket.close()
    Await.result(binding.unbind(), 10.seconds)
  }

  it should "stop accepting while its dispatcher takes longer than the pause to take a connection, and resume " +
    "after" in {
    // The bind's own stream on a one-thread dispatcher, which the case blocks: what it accepts waits to be handed.
    val blocked = CountDownLatch(1)
    val accepted = LinkedBlockingQueue[Tcp.IncomingConnection]()
    val binding = Await.result(bind(batch = 64, pauseAbove = 50.millis)
      .to(Sink.foreach(accepted.put)).withAttributes(ActorAttributes.dispatcher("one-thread")).run(), 10.seconds)
    val port = binding.localAddress.getPort
    // Blocked for sure before any connection comes: a busy machine may start the blocking task late.
    val blocking = CountDownLatch(1)
    system.dispatchers.lookup("one-thread").execute { () => blocking.countDown(); blocked.await(20, TimeUnit.SECONDS) }
    blocking.await(10, TimeUnit.SECONDS) shouldBe true
    val first = (1 to 4).map(_ => RawConnection.to(port))
    try
      OsProbes.within(5)(OsProbes.acceptQueue(port) == 0) shouldBe true // taken: the dispatcher was not known busy
      Thread.sleep(100) // their hand-off now waits longer than the pause
      val rest = (1 to 16).map(_ => RawConnection.to(port))
      try
        OsProbes.within(5)(OsProbes.acceptQueue(port) == 16) shouldBe true
        Thread.sleep(200) // several probes' time: a batch of 64 would have taken them all, the pause takes none
        OsProbes.acceptQueue(port) shouldBe 16
        blocked.countDown()
        OsProbes.within(5)(accepted.size == 20) shouldBe true
        OsProbes.acceptQueue(port) shouldBe 0
      finally rest.foreach(_.close())
    finally
      blocked.countDown()
      first.foreach(_.close())
      Await.result(binding.unbind(), 10.seconds)
  }

  it should "stop accepting while a batch of connections' first requests wait for their dispatcher, and resume as " +
    "they are taken" in {
    // The connections' streams on a one-thread dispatcher that the case blocks once they are set up.
    val blocked = CountDownLatch(1)
    val binding = Await.result(bind(batch = 4, pauseAbove = 10.seconds).to(Sink.foreach(c =>
      c.flow.join(Flow[ByteString]).addAttributes(ActorAttributes.dispatcher("one-thread")).run())).run(), 10.seconds)
    val port = binding.localAddress.getPort
    val first = (1 to 4).map(_ => RawConnection.to(port))
    try
      // Set up: the listener and the four connections registered with the loops.
      OsProbes.within(5)(loops.loops.map(_.registeredChannels).sum == 5) shouldBe true
      val blocking = CountDownLatch(1)
      system.dispatchers.lookup("one-thread").execute { () =>
        blocking.countDown(); blocked.await(20, TimeUnit.SECONDS)
      }
      blocking.await(10, TimeUnit.SECONDS) shouldBe true
      first.foreach(_.write(ByteString("?")))
      OsProbes.within(5)(OsProbes.unreadBytes(port) == 0) shouldBe true // the loop read them
      val rest = (1 to 16).map(_ => RawConnection.to(port))
      try
        OsProbes.within(5)(OsProbes.acceptQueue(port) == 16) shouldBe true
        Thread.sleep(200) // the requests still wait: nothing more is accepted
        OsProbes.acceptQueue(port) shouldBe 16
        blocked.countDown()
        OsProbes.within(5)(OsProbes.acceptQueue(port) == 0) shouldBe true
        first.foreach(_.read(1).utf8String shouldBe "?")
      finally rest.foreach(_.close())
    finally
      blocked.countDown()
      first.foreach(_.close())
      Await.result(binding.unbind(), 10.seconds)
  }

  "An outgoing selector connection" should "write what its stream pushes in one go, and read the answer" in {
    val server = RawServer()
    try
      // Two elements, as an HTTP client renders a head and an entity, then the stream waits for the answer.
      val (local, answer) = Source(List(ByteString("head:"), ByteString("body!"))).concat(Source.maybe[ByteString])
        .viaMat(SelectorConnect(loops, server.address, 5.seconds, 16 * 1024))(Keep.right)
        .take(1).toMat(Sink.head)(Keep.both).run()
      val peer = server.accept()
      try
        Await.result(local, 10.seconds).getAddress.isLoopbackAddress shouldBe true
        peer.read(10).utf8String shouldBe "head:body!"
        peer.write(ByteString("answer"))
        Await.result(answer, 10.seconds).utf8String shouldBe "answer"
      finally peer.close()
    finally server.close()
  }

  it should "fail, naming the host, when a name does not resolve" in {
    val (local, _) = Source.maybe[ByteString]
      .viaMat(SelectorConnect(loops, InetSocketAddress.createUnresolved("no-such-host.invalid", 80), 5.seconds,
        1024))(Keep.right).toMat(Sink.ignore)(Keep.both).run()
    val failure = Await.ready(local, 10.seconds).value.get.failed.get
    failure shouldBe a[StreamTcpException]
    failure.getMessage should include("no-such-host.invalid")
    failure.getCause shouldBe a[java.net.UnknownHostException]
  }
