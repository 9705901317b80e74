package org.apache.pekko.stream.impl.io

import org.apache.pekko.actor.ActorSystem
import org.apache.pekko.stream.Materializer
import org.apache.pekko.stream.scaladsl.{Flow, Keep, Sink, Tcp}
import org.apache.pekko.util.ByteString
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.io.{ByteArrayOutputStream, IOException}
import java.net.{ConnectException, InetSocketAddress, Socket}
import java.util.concurrent.atomic.AtomicInteger
import scala.concurrent.duration.*
import scala.concurrent.{Await, Future, Promise}

/** The selector transport over real sockets: what it reads and writes, under back-pressure, and how it closes. */
@Slow
class SelectorTransportSpec extends AnyFlatSpec with Matchers:

  private def withTransport[A](body: (ActorSystem, IoLoops) ?=> A): A =
    val system = ActorSystem("selector-transport")
    val loops = IoLoops("selector-transport-io", 2, 64 * 1024, (what, e) => system.log.error(e, what))
    try body(using system, loops)
    finally
      loops.shutdown()
      Await.ready(system.terminate(), 10.seconds)

  private def serve(handler: Tcp.IncomingConnection => Future[?], batch: Int = 16, readAhead: Int = 64 * 1024)(
      using system: ActorSystem, loops: IoLoops): Tcp.ServerBinding =
    given Materializer = Materializer(system)
    Await.result(SelectorBindSource.bind(loops, "127.0.0.1", 0, backlog = 1024, options = Nil, halfClose = false,
      batch = batch, readAhead = readAhead).mapAsyncUnordered(10_000)(handler).to(Sink.ignore).run(), 10.seconds)

  private def joined(flow: Flow[ByteString, ByteString, ?])(using system: ActorSystem)
      : Tcp.IncomingConnection => Future[?] =
    given Materializer = Materializer(system)
    c => c.flow.watchTermination()(Keep.right).join(flow).run()

  private def connect(port: Int): Socket =
    val socket = Socket()
    socket.connect(InetSocketAddress("127.0.0.1", port), 5000)
    socket.setSoTimeout(10000)
    socket

  private def readAll(socket: Socket): Array[Byte] =
    val out = ByteArrayOutputStream()
    socket.getInputStream.transferTo(out)
    out.toByteArray

  private def pattern(n: Int): Array[Byte] = Array.tabulate(n)(i => (i % 251).toByte)

  "The selector transport" should "serve every one of many connections opened at once" in withTransport {
    val binding = serve(joined(Flow[ByteString]), batch = 8)
    val port = binding.localAddress.getPort
    val sockets = (1 to 300).map(_ => connect(port))
    try
      sockets.zipWithIndex.foreach((s, i) => s.getOutputStream.write(s"hello $i\n".getBytes))
      sockets.zipWithIndex.foreach { (s, i) =>
        val expected = s"hello $i\n".getBytes
        s.getInputStream.readNBytes(expected.length) shouldBe expected
      }
    finally sockets.foreach(_.close())
    Await.result(binding.unbind(), 10.seconds)
  }

  it should "write an answer larger than the socket takes at once, whole and in order, to a slow reader" in
    withTransport {
      val size = 16 << 20
      val payload = pattern(size)
      val chunks = payload.grouped(256 * 1024).map(ByteString(_)).toList
      // Its input stays open until the client's end: cancelling it would close the connection (as Pekko's does).
      val binding = serve(joined(Flow[ByteString].mapConcat(_ => chunks)))
      val socket = connect(binding.localAddress.getPort)
      try
        socket.getOutputStream.write('x')
        socket.shutdownOutput()
        Thread.sleep(300) // the server fills the socket's buffers and waits for it to be writable
        val got = readAll(socket)
        got.length shouldBe size
        java.util.Arrays.equals(got, payload) shouldBe true
      finally socket.close()
      Await.result(binding.unbind(), 10.seconds)
    }

  it should "read an upload larger than its read-ahead whole while the stream takes it slowly" in withTransport {
    val size = 4 << 20
    val payload = pattern(size)
    val got = Promise[ByteString]()
    val binding = serve(
      { c =>
        given Materializer = Materializer(summon[ActorSystem])
        // Takes 64 KiB chunks with a pause: the loop must stop reading at the read-ahead and start again.
        c.flow.join(Flow[ByteString].throttle(1, 2.millis).fold(ByteString.empty)(_ ++ _)
          .map { all => got.trySuccess(all); ByteString("done") }).run()
        got.future
      }, readAhead = 16 * 1024)
    val socket = connect(binding.localAddress.getPort)
    try
      socket.getOutputStream.write(payload)
      socket.shutdownOutput()
      readAll(socket) shouldBe "done".getBytes
      val all = Await.result(got.future, 30.seconds).toArray
      all.length shouldBe size
      java.util.Arrays.equals(all, payload) shouldBe true
    finally socket.close()
    Await.result(binding.unbind(), 10.seconds)
  }

  it should "complete its bytes when the peer stops sending, and close the socket when its own output ends" in
    withTransport {
      val ended = Promise[Unit]()
      val binding = serve(joined(Flow[ByteString].fold(0)(_ + _.length).map { n =>
        ended.trySuccess(())
        ByteString(s"got $n")
      }))
      val socket = connect(binding.localAddress.getPort)
      try
        socket.getOutputStream.write(pattern(1000))
        socket.shutdownOutput()
        Await.result(ended.future, 10.seconds)
        new String(readAll(socket)) shouldBe "got 1000" // readAll returns at the server's close
      finally socket.close()
      Await.result(binding.unbind(), 10.seconds)
    }

  it should "abort the connection (reset) when its stream fails" in withTransport {
    val binding = serve(joined(Flow[ByteString].map(_ => throw IllegalStateException("the handler failed"))))
    val socket = connect(binding.localAddress.getPort)
    try
      socket.getOutputStream.write('x')
      val outcome =
        try Right(socket.getInputStream.read())
        catch case e: IOException => Left(e.getMessage)
      outcome shouldBe Left("Connection reset")
    finally socket.close()
    Await.result(binding.unbind(), 10.seconds)
  }

  it should "close its port at unbind, and its connections' sockets when their streams end" in withTransport {
    val open = AtomicInteger()
    val binding = serve { c =>
      given Materializer = Materializer(summon[ActorSystem])
      open.incrementAndGet()
      c.flow.watchTermination()(Keep.right).join(Flow[ByteString].take(1)).run()
        .andThen(_ => open.decrementAndGet())(scala.concurrent.ExecutionContext.parasitic)
    }
    val port = binding.localAddress.getPort
    val sockets = (1 to 20).map(_ => connect(port))
    try
      sockets.foreach(_.getOutputStream.write('x'))
      sockets.map(_.getInputStream.read()) shouldBe Seq.fill(20)('x'.toInt)
      sockets.map(_.getInputStream.read()) shouldBe Seq.fill(20)(-1) // the server closed each one
      Await.result(binding.unbind(), 10.seconds)
      Await.result(binding.whenUnbound, 10.seconds)
      an[ConnectException] should be thrownBy connect(port).close()
      Iterator.range(0, 100).exists(_ => open.get == 0 || { Thread.sleep(50); false }) shouldBe true
    finally sockets.foreach(_.close())
  }

  it should "fail its binding, naming the cause, when the port is taken" in withTransport {
    val taken = serve(joined(Flow[ByteString]))
    given Materializer = Materializer(summon[ActorSystem])
    val bound = SelectorBindSource.bind(summon[IoLoops], "127.0.0.1", taken.localAddress.getPort, 16, Nil,
      halfClose = false, batch = 1, readAhead = 1024).to(Sink.ignore).run()
    val failure = Await.ready(bound, 10.seconds).value.get.failed.get
    failure.getMessage should include("Bind failed")
    Await.result(taken.unbind(), 10.seconds)
  }

  "An outgoing selector connection" should "connect, write what its stream pushes, and read the answer" in
    withTransport {
      given Materializer = Materializer(summon[ActorSystem])
      val server = java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress)
      val got = Promise[String]()
      val peer = Thread { () =>
        val socket = server.accept()
        try
          val request = new String(socket.getInputStream.readNBytes(10))
          got.trySuccess(request)
          socket.getOutputStream.write(s"answer to $request".getBytes)
        finally socket.close()
      }
      peer.setDaemon(true)
      peer.start()
      try
        val remote = InetSocketAddress("127.0.0.1", server.getLocalPort)
        // Two elements, as an HTTP client renders a head and an entity, then the stream waits for the answer.
        val (local, answer) = org.apache.pekko.stream.scaladsl.Source(List(ByteString("head:"), ByteString("body!")))
          .concat(org.apache.pekko.stream.scaladsl.Source.maybe[ByteString])
          .viaMat(SelectorConnect(summon[IoLoops], remote, 5.seconds, 16 * 1024))(Keep.right)
          .fold(ByteString.empty)(_ ++ _).toMat(Sink.head)(Keep.both).run()
        Await.result(local, 10.seconds).getAddress.isLoopbackAddress shouldBe true
        Await.result(got.future, 10.seconds) shouldBe "head:body!"
        Await.result(answer, 10.seconds).utf8String shouldBe "answer to head:body!"
      finally server.close()
    }

  it should "fail, and fail what it materialises, when nothing listens at the address" in withTransport {
    given Materializer = Materializer(summon[ActorSystem])
    val closed = java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress)
    val port = closed.getLocalPort
    closed.close()
    val (local, done) = org.apache.pekko.stream.scaladsl.Source.maybe[ByteString]
      .viaMat(SelectorConnect(summon[IoLoops], InetSocketAddress("127.0.0.1", port), 5.seconds, 1024))(Keep.right)
      .toMat(Sink.ignore)(Keep.both).run()
    Await.ready(local, 10.seconds).value.get.failed.get.getMessage should include(s"127.0.0.1:$port")
    Await.ready(done, 10.seconds).value.get.isFailure shouldBe true
  }

