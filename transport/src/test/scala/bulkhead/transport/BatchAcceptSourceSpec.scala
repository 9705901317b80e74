package bulkhead.transport

import com.typesafe.config.ConfigFactory
import org.apache.pekko.Done
import org.apache.pekko.actor.ActorSystem
import org.apache.pekko.stream.Materializer
import org.apache.pekko.stream.scaladsl.{Flow, Keep, Sink, Tcp}
import org.apache.pekko.stream.testkit.scaladsl.TestSink
import org.apache.pekko.util.ByteString
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.net.{ConnectException, InetSocketAddress, Socket}
import java.nio.file.{Files, Path}
import scala.concurrent.duration.*
import scala.concurrent.Await
import scala.jdk.CollectionConverters.*
import scala.util.Using

/** The batch-accepting bind over real sockets: what it accepts, what it holds, and how it stops. */
@Slow
class BatchAcceptSourceSpec extends AnyFlatSpec with Matchers:

  private def withSystem[A](body: ActorSystem ?=> A): A =
    // A connection accepted and never served delays the source's completion by this long after an unbind.
    val config = ConfigFactory.parseString("pekko.stream.materializer.subscription-timeout.timeout = 1s")
    val system = ActorSystem("batch-accept", config.withFallback(ConfigFactory.load()))
    try body(using system)
    finally Await.ready(system.terminate(), 10.seconds)

  private def source(batch: Int)(using system: ActorSystem) =
    BatchAcceptSource.bind(system, "127.0.0.1", 0, backlog = 1024, options = Nil, halfClose = false,
      idleTimeout = Duration.Inf, batch = batch)

  private def connect(port: Int): Socket =
    val socket = Socket()
    socket.connect(InetSocketAddress("127.0.0.1", port), 5000)
    socket.setSoTimeout(10000)
    socket

  /**
   * Connections in the kernel's accept queue of the listener on `port`, not yet accepted: a listening socket's
   * rx_queue in /proc/net/tcp6 (the JDK's sockets are IPv6, also on 127.0.0.1) or /proc/net/tcp.
   */
  private def acceptQueue(port: Int): Int =
    val lines = Seq("/proc/net/tcp6", "/proc/net/tcp").map(Path.of(_)).filter(Files.isReadable)
      .flatMap(p => Files.readAllLines(p).asScala.drop(1))
    lines.map(_.trim.split("\\s+")).find(f => f(1).endsWith(f":${port}%04X") && f(3) == "0A")
      .map(f => Integer.parseInt(f(4).split(':')(1), 16)).getOrElse(-1)

  /** Whether `cond` holds within ten seconds, tried every 50 ms. */
  private def eventually()(cond: => Boolean): Boolean =
    Iterator.range(0, 200).exists(_ => cond || { Thread.sleep(50); false })

  private val onLinux = Files.isReadable(Path.of("/proc/net/tcp6")) || Files.isReadable(Path.of("/proc/net/tcp"))

  "A batch-accepting bind" should "accept and hand over every one of many connections opened at once" in withSystem {
    given Materializer = Materializer(summon[ActorSystem])
    val echo = Flow[ByteString]
    val binding = Await.result(source(batch = 16)
      .mapAsyncUnordered(1000)(c => c.flow.watchTermination()(Keep.right).join(echo).run())
      .to(Sink.ignore).run(), 10.seconds)
    val port = binding.localAddress.getPort
    val sockets = (1 to 300).map(_ => connect(port))
    try
      sockets.foreach(_.getOutputStream.write('x'))
      sockets.map(_.getInputStream.read()) shouldBe Seq.fill(300)('x'.toInt)
    finally sockets.foreach(_.close())
    Await.result(binding.unbind(), 10.seconds)
  }

  it should "accept no more connections than downstream asked for, rounded up to one batch" in withSystem {
    assume(onLinux, "reads the accept queue from /proc/net/tcp")
    given Materializer = Materializer(summon[ActorSystem])
    val (bound, probe) = source(batch = 4).toMat(TestSink[Tcp.IncomingConnection]())(Keep.both).run()
    val port = Await.result(bound, 10.seconds).localAddress.getPort
    val sockets = (1 to 20).map(_ => connect(port))
    try
      eventually()(acceptQueue(port) == 20) shouldBe true
      probe.request(1)
      probe.expectNext(10.seconds)
      // One batch asked for: one handed over, three held, sixteen left in the kernel's queue.
      eventually()(acceptQueue(port) == 16) shouldBe true
      probe.expectNoMessage(300.millis)
      acceptQueue(port) shouldBe 16
      probe.request(6)
      (1 to 6).foreach(_ => probe.expectNext(10.seconds))
      // Seven handed over: the three held, then two more batches of four, one of them held.
      eventually()(acceptQueue(port) == 12) shouldBe true
      probe.expectNoMessage(300.millis)
      acceptQueue(port) shouldBe 12
    finally sockets.foreach(_.close())
    probe.cancel()
  }

  it should "stop accepting on unbind, hand over the connections it held, and complete" in withSystem {
    given Materializer = Materializer(summon[ActorSystem])
    val (bound, probe) = source(batch = 8).toMat(TestSink[Tcp.IncomingConnection]())(Keep.both).run()
    val binding = Await.result(bound, 10.seconds)
    val port = binding.localAddress.getPort
    val sockets = (1 to 3).map(_ => connect(port))
    try
      probe.request(1)
      probe.expectNext(10.seconds)
      if onLinux then eventually()(acceptQueue(port) == 0) shouldBe true
      Await.result(binding.unbind(), 10.seconds)
      an[ConnectException] should be thrownBy Using.resource(Socket())(_.connect(InetSocketAddress("127.0.0.1", port)))
      probe.request(5)
      probe.expectNext(10.seconds)
      probe.expectNext(10.seconds)
      probe.expectComplete()
      Await.result(binding.whenUnbound, 10.seconds) shouldBe Done
    finally sockets.foreach(_.close())
  }

  it should "refuse a batch below one" in withSystem {
    an[IllegalArgumentException] should be thrownBy source(batch = 0)
  }
