package bulkhead.transport

import com.typesafe.config.ConfigFactory
import org.apache.pekko.actor.{Actor, ActorSystem, Props}
import org.apache.pekko.event.Logging
import org.apache.pekko.stream.scaladsl.{Flow, Keep, Sink, Source, Tcp}
import org.apache.pekko.stream.StreamTcpException
import org.apache.pekko.util.ByteString
import org.scalatest.BeforeAndAfterAll
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.io.IOException
import java.net.{ConnectException, InetSocketAddress}
import java.nio.ByteBuffer
import java.nio.channels.{FileChannel, Pipe, SelectionKey, SocketChannel}
import java.nio.file.{Path, StandardOpenOption}
import java.util.concurrent.{ConcurrentLinkedQueue, LinkedBlockingQueue, TimeUnit}
import scala.concurrent.duration.*
import scala.concurrent.{Await, ExecutionContext, Future, Promise}
import scala.jdk.CollectionConverters.*
import scala.sys.process.*

/**
 * The selector loop under faults, as Pekko's TCP layer keeps a connection's fault to itself: a handler that throws
 * (once, or every time) fails its own connection and the loop goes on; a fatal error ends the loop loudly and fails
 * everything on it at once; running out of descriptors pauses accepting without a spin or a flood of warnings, and
 * accepting resumes once descriptors are free.
 */
@Slow
class IoLoopFaultsSpec extends AnyFlatSpec with Matchers with BeforeAndAfterAll:
  private given system: ActorSystem = ActorSystem("loop-faults", ConfigFactory.parseString(
    """pekko.loglevel = "WARNING"
       pekko.stdout-loglevel = "OFF"
       pekko.loggers = []""").withFallback(ConfigFactory.load()))
  private given ExecutionContext = system.dispatcher

  // Every WARNING the actor system publishes (the listener's accept failures among them).
  private val warnings = ConcurrentLinkedQueue[String]()
  system.eventStream.subscribe(system.actorOf(Props(new Actor:
    def receive = { case w: Logging.Warning => warnings.add(w.message.toString) })), classOf[Logging.Warning])

  // Its actor system exists from construction: stopped even when the quick tier runs none of its cases.
  override val invokeBeforeAllAndAfterAllEvenIfNoTestsAreExpected = true

  override def afterAll(): Unit = Await.ready(system.terminate(), 10.seconds)

  /** One loop (every connection on the same thread) for a case, with what it reported. */
  private final class OneLoop(name: String):
    val errors = ConcurrentLinkedQueue[String]()
    val died = Promise[(String, Throwable)]()
    val loops = IoLoops(name, 1, 64 * 1024, (what, _) => errors.add(what), (thread, e) => died.trySuccess(thread -> e))
    val loop: IoLoop = loops.loops.head
    val accepted = java.util.concurrent.atomic.AtomicInteger()
    def echo(): Tcp.ServerBinding =
      Await.result(SelectorBindSource.bind(loops, "127.0.0.1", 0, 1024, Nil, halfClose = false, batch = 16,
        readAhead = 16 * 1024).to(Sink.foreach { c =>
          accepted.incrementAndGet()
          c.flow.join(Flow[ByteString]).run()
        }).run(), 10.seconds)
    /** A handler on a pipe of this loop; writing to the pipe makes it ready. */
    def register(handler: IoLoop.Handler): Pipe =
      val pipe = Pipe.open()
      pipe.source().configureBlocking(false)
      val registered = Promise[Unit]()
      loop.execute(() => registered.complete(scala.util.Try(loop.register(pipe.source(), SelectionKey.OP_READ,
        handler)).map(_ => ())))
      Await.result(registered.future, 5.seconds)
      pipe
    def ran(): Boolean =
      val task = Promise[Unit]()
      loop.execute(() => task.trySuccess(()))
      Await.ready(task.future, 5.seconds).isCompleted

  private def echoes(socket: RawConnection, text: String): Unit =
    socket.write(ByteString(text))
    socket.read(text.length).utf8String shouldBe text

  private def poke(pipe: Pipe): Unit = pipe.sink().write(ByteBuffer.wrap(Array[Byte](1)))

  "A selector loop" should "close the one connection whose handler throws, and go on with the others and its tasks" in {
    val one = OneLoop("faults-once")
    val binding = one.echo()
    val client = RawConnection.to(binding.localAddress.getPort)
    try
      echoes(client, "before")
      val failedWith = Promise[Throwable]()
      var calls = 0
      val pipe = one.register(new IoLoop.Handler:
        def ready(key: SelectionKey, readyOps: Int): Unit =
          calls += 1
          if calls == 1 then throw IllegalStateException("injected")
        def failed(e: Throwable): Unit = failedWith.trySuccess(e))
      poke(pipe)
      Await.result(failedWith.future, 5.seconds).getMessage shouldBe "injected"
      OsProbes.within(5)(!pipe.source().isOpen) shouldBe true
      echoes(client, "after")
      one.ran() shouldBe true
      one.loop.alive shouldBe true
    finally
      client.close()
      one.loops.shutdown()
  }

  it should "not spin, and keep serving, when handlers throw at every readiness and again when told they failed" in {
    val one = OneLoop("faults-always")
    val binding = one.echo()
    val client = RawConnection.to(binding.localAddress.getPort)
    try
      val pipes = (1 to 20).map(_ => one.register(new IoLoop.Handler:
        def ready(key: SelectionKey, readyOps: Int): Unit = throw IllegalStateException("injected")
        def failed(e: Throwable): Unit = throw IllegalStateException("injected again")))
      pipes.foreach(poke)
      OsProbes.within(5)(pipes.forall(!_.source().isOpen)) shouldBe true
      val cpu = OsProbes.threadCpuNanos("faults-always-1")
      Thread.sleep(300)
      (OsProbes.threadCpuNanos("faults-always-1") - cpu).nanos should be < 100.millis
      echoes(client, "still served")
      one.ran() shouldBe true
      one.errors.asScala.count(_.contains("failed again")) shouldBe 20
    finally
      client.close()
      one.loops.shutdown()
  }

  it should "end on a fatal error: fail every stream on it at once, complete whenUnbound, report its death, run " +
    "later tasks on their callers and leave no descriptor open" in {
    val baseline = OsProbes.openDescriptors()
    val one = OneLoop("faults-fatal")
    val served = Promise[Future[org.apache.pekko.Done]]()
    val binding = Await.result(SelectorBindSource.bind(one.loops, "127.0.0.1", 0, 1024, Nil, halfClose = false,
      batch = 16, readAhead = 16 * 1024).to(Sink.foreach(c =>
        served.trySuccess(c.flow.watchTermination()(Keep.right).join(Flow[ByteString]).run()))).run(), 10.seconds)
    val port = binding.localAddress.getPort
    val client = RawConnection.to(port)
    val remote = RawServer()
    try
      echoes(client, "alive")
      val outgoing = Source.maybe[ByteString].via(SelectorConnect(one.loops, remote.address, 5.seconds, 1024))
        .runWith(Sink.ignore)
      val peer = remote.accept()
      one.loop.execute(() => throw OutOfMemoryError("injected"))
      val (thread, error) = Await.result(one.died.future, 5.seconds)
      thread shouldBe "faults-fatal-1"
      error.getMessage shouldBe "injected"
      one.loop.alive shouldBe false
      // Every stream on it failed now, not at an idle timeout.
      val serverSide = Await.ready(Await.result(served.future, 5.seconds), 5.seconds).value.get.failed.get
      serverSide.getMessage should include("faults-fatal-1 died")
      Await.ready(outgoing, 5.seconds).value.get.failed.get shouldBe a[StreamTcpException]
      Await.ready(binding.whenUnbound, 5.seconds).value.get.isFailure shouldBe true
      Await.ready(binding.unbind(), 5.seconds).isCompleted shouldBe true
      a[ConnectException] should be thrownBy RawConnection.to(port)
      client.expectClosed() shouldBe true
      peer.expectClosed() shouldBe true
      one.ran() shouldBe true // on this thread now
      peer.close()
    finally
      client.close()
      remote.close()
    OsProbes.within(5)(OsProbes.openDescriptors() <= baseline) shouldBe true
  }

  it should "pause accepting without spinning when out of descriptors, warn at most once a second, fail an outgoing " +
    "connect saying so, and accept again once descriptors are free" in {
    val prlimit = Seq("sh", "-c", "command -v prlimit").!!.trim
    withClue("prlimit (util-linux) sets this process's limit of open files: install util-linux: ")(
      prlimit should not be empty)
    val one = OneLoop("faults-emfile")
    val binding = one.echo()
    val port = binding.localAddress.getPort
    val pid = ProcessHandle.current().pid()
    val (soft, hard) = Seq(prlimit, "--pid", pid.toString, "--nofile", "--noheadings", "--raw", "--output=SOFT,HARD")
      .!!.trim.split("\\s+") match { case Array(s, h) => (s, h) }
    // What the case runs while out of descriptors runs once before, so that no class is loaded then (a class file
    // needs a descriptor): a warning logged, a connect that fails.
    system.log.warning("{} {} {}", "rehearsal", 1, 2)
    val refused = Source.maybe[ByteString].viaMat(SelectorConnect(one.loops, InetSocketAddress("127.0.0.1",
      scala.util.Using.resource(java.net.ServerSocket(0))(_.getLocalPort)), 5.seconds, 1024))(Keep.right)
      .toMat(Sink.ignore)(Keep.left).run()
    Await.ready(refused, 5.seconds).value.get.isFailure shouldBe true
    OsProbes.threadCpuNanos("faults-emfile-1") should be > 0L
    // The clients' sockets exist before the limit is reached: connecting one takes no descriptor.
    val clients = (1 to 5).map(_ => SocketChannel.open())
    val fillers = ConcurrentLinkedQueue[FileChannel]()
    def fill(): Unit =
      try while true do fillers.add(FileChannel.open(Path.of("/dev/null"), StandardOpenOption.READ))
      catch case _: IOException => ()
    // Descriptors the JVM frees meanwhile (sockets of earlier cases closing) are taken back at once.
    @volatile var filling = true
    val filler = Thread(() => while filling do { fill(); Thread.sleep(2) })
    warnings.clear()
    try
      Seq(prlimit, "--pid", pid.toString, s"--nofile=${OsProbes.openDescriptors() + 16}:$hard").!!
      fill()
      filler.start()
      clients.foreach(_.connect(InetSocketAddress("127.0.0.1", port)))
      val cpu = OsProbes.threadCpuNanos("faults-emfile-1")
      Thread.sleep(1200)
      one.accepted.get shouldBe 0 // /proc cannot be read now: the listener's own count
      (OsProbes.threadCpuNanos("faults-emfile-1") - cpu).nanos should be < 150.millis // ~10 tries a second, no spin
      val warned = warnings.asScala.filter(_.startsWith("Accepting on"))
      warned.size should (be >= 1 and be <= 2)
      warned.head should include("Too many open files")
      warned.head should include("ulimit -n")
      val outgoing = Source.maybe[ByteString].viaMat(SelectorConnect(one.loops, InetSocketAddress("127.0.0.1", port),
        5.seconds, 1024))(Keep.right).toMat(Sink.ignore)(Keep.left).run()
      Await.ready(outgoing, 5.seconds).value.get.failed.get.getMessage should include("Too many open files")
    finally
      filling = false
      if filler.isAlive then filler.join()
      fillers.asScala.foreach(_.close())
      Seq(prlimit, "--pid", pid.toString, s"--nofile=$soft:$hard").!!
    try
      OsProbes.within(5)(one.accepted.get == 5) shouldBe true
      clients.foreach { c =>
        c.write(ByteBuffer.wrap("back".getBytes))
        val answer = ByteBuffer.allocate(4)
        while answer.hasRemaining do c.read(answer)
        new String(answer.array) shouldBe "back"
      }
    finally
      clients.foreach(_.close())
      one.loops.shutdown()
  }
