package bulkhead.transport

import org.apache.pekko.io.Inet.SocketOption
import org.apache.pekko.io.Dns
import org.apache.pekko.io.dns.DnsProtocol
import org.apache.pekko.stream.*
import org.apache.pekko.stream.stage.*
import org.apache.pekko.util.ByteString

import java.net.{ConnectException, InetSocketAddress, StandardSocketOptions}
import java.nio.channels.{SelectionKey, SocketChannel}
import java.util.concurrent.atomic.AtomicInteger
import scala.collection.mutable
import scala.concurrent.duration.FiniteDuration
import scala.concurrent.{Future, Promise}
import scala.util.control.NonFatal

/**
 * A socket as a flow of bytes, without Pekko's TCP actors: the bytes pushed in are written to the socket by the
 * stream's own thread, and the bytes its [[IoLoop]] reads come out. What Pekko's connection stage does through a
 * connection actor in five messages a request (the read, `Received`, the write, its acknowledgement, `ResumeReading`),
 * this does in one hand-off from the loop to the stream.
 *
 * The socket is one accepted ([[SelectorConnectionStage.Incoming]], claimed at materialisation: a second one is
 * refused) or one this stage opens and connects without blocking ([[SelectorConnectionStage.Outgoing]], a new socket
 * at each materialisation, its name resolved by Pekko's DNS extension when it is not an address).
 *
 * The loop reads ahead of demand up to `readAhead` bytes not yet pushed (then stops reading until the stream takes
 * them), so a connection whose stream does not take its bytes holds at most `readAhead` of them; while the stream
 * waits for bytes and none are on their way, one read takes what the loop's buffer holds, for the stream that asked
 * for them. A write the socket does not take at once waits for the
 * socket to be writable before the next element is pulled; writes go through the loops' pooled direct buffers. The
 * closing is Pekko's connection stage's (`TcpStreamLogic`):
 *  - the peer's end of its bytes completes the output, and the input may still write;
 *  - the input's completion closes the socket once its bytes are written; with `halfClose`, while the output still
 *    reads, it shuts only the writing side (FIN) and the socket closes when the peer ends too;
 *  - the output cancelled: with `halfClose` reading goes on (its bytes dropped) until the input completes, without,
 *    the socket closes once nothing is being written;
 *  - a failure on either side, or the stage stopped abruptly, aborts it (RST) and fails the stage, the cause kept.
 */
private[transport] final class SelectorConnectionStage(endpoint: SelectorConnectionStage.Endpoint, loop: IoLoop,
    buffers: WriteBuffers, halfClose: Boolean, readAhead: Int)
    extends GraphStageWithMaterializedValue[FlowShape[ByteString, ByteString], Future[InetSocketAddress]]:
  import SelectorConnectionStage.*
  require(readAhead >= 1, s"readAhead must be at least 1, not $readAhead")

  val in: Inlet[ByteString] = Inlet("SelectorConnection.in")
  val out: Outlet[ByteString] = Outlet("SelectorConnection.out")
  val shape: FlowShape[ByteString, ByteString] = FlowShape(in, out)
  override def initialAttributes: Attributes = Attributes.name("SelectorConnection")

  /** The socket's local address once it is connected (at once for an accepted one). */
  override def createLogicAndMaterializedValue(inheritedAttributes: Attributes)
      : (GraphStageLogic, Future[InetSocketAddress]) =
    val unclaimable = endpoint match
      case Incoming(socket, _, _) =>
        socket.claim() match
          case Right(()) => None
          // As Pekko's incoming connection stage: a flow materialised twice is a bug of the caller's.
          case Left(why) if socket.claimed => throw IllegalStateException(why)
          case Left(why) => Some(why)
      case _: Outgoing => None
    val connected = Promise[InetSocketAddress]()
    (Logic(unclaimable, connected), connected.future)

  override def toString: String = endpoint match
    case Incoming(_, remote, _) => s"SelectorConnection-from($remote)"
    case Outgoing(remote, _, _, _, _) => s"SelectorConnection-to($remote)"

  private final class Logic(unclaimable: Option[String], connected: Promise[InetSocketAddress])
      extends TimerGraphStageLogic(shape), InHandler, OutHandler:
    private val remote = endpoint.remote
    // Bytes the loop has read that have not been pushed downstream: shared between the loop and the stream.
    private val unread = AtomicInteger()
    // The stream has pulled and holds nothing to push: the loop may read a whole buffer for it.
    @volatile private var wanted = false
    // The first bytes, for the listener's accept gate: not read, read at `firstReadAt`, or taken (or never to be).
    private val gate = endpoint match
      case Incoming(_, _, gate) => gate
      case _: Outgoing => None
    private val firstBytes = AtomicInteger(if gate.isDefined then FirstNotRead else FirstTaken)
    @volatile private var firstReadAt = 0L
    // Set once, before the loop sees the channel; for an outgoing connection in preStart.
    @volatile private var channel: SocketChannel = endpoint match
      case Incoming(socket, _, _) => socket.channel
      case _: Outgoing => null

    // The loop's side (its thread only).
    private var key: SelectionKey = null
    private var readEnded = false

    // The stream's side.
    private val received = mutable.Queue.empty[ByteString]
    private var isConnected = false
    private var peerClosed = false
    private var unwritten: ByteString = null // taken from upstream, not yet all written
    // An outgoing connection gathers what its upstream pushes in one go and writes it at once: one write, one
    // segment, one read and one hand-off at the peer. Pekko HTTP's client renders a request's head, then its
    // streamed entity through a substream, whose bytes reach this stage a message later: the write waits for two
    // messages of the stream's own actor (Pekko's TCP stage waits for round trips to its connection actor).
    // A client whose requests come whole in one element (`gatherWrites = false`) writes each at once.
    private val coalesce = endpoint match
      case o: Outgoing => o.gatherWrites
      case _: Incoming => false
    private var gathered = ByteString.empty
    private var flushScheduled = false
    private var gatheringHops = 0
    private var closeWhenWritten = false
    private var outputShut = false
    private var released = false

    private val onReceived = getAsyncCallback[ByteString] { bytes =>
      firstTaken()
      if isClosed(out) then release(bytes.length)
      else
        received.enqueue(bytes)
        if isAvailable(out) then pushReceived()
    }

    private def firstTaken(): Unit =
      if firstBytes.get != FirstTaken then
        firstBytes.getAndSet(FirstTaken) match
          case FirstRead => gate.get.firstTaken(firstReadAt)
          case _ => ()
    private val onPeerClosed = getAsyncCallback[Unit](_ =>
      peerClosed = true
      if received.isEmpty then peerDone())
    private val onWritable = getAsyncCallback[Unit](_ => writeOn())
    private val onFailed = getAsyncCallback[Throwable](e => fail(e))
    private val onConnected = getAsyncCallback[Unit](_ => whenConnected())
    // Runs after the elements the upstream has ready now were pushed (a message to this stage's own actor).
    private val onGathered: AsyncCallback[Unit] = getAsyncCallback[Unit] { _ =>
      gatheringHops += 1
      if gatheringHops < GatheringHops then onGathered.invoke(())
      else
        gatheringHops = 0
        flushScheduled = false
        startWrite()
    }

    private object io extends IoLoop.Handler:
      def ready(k: SelectionKey, readyOps: Int): Unit =
        if (readyOps & SelectionKey.OP_CONNECT) != 0 then
          try
            if channel.finishConnect() then
              k.interestOps(SelectionKey.OP_READ)
              onConnected.invoke(())
          catch
            case NonFatal(e) =>
              IoLoop.disarm(k, SelectionKey.OP_CONNECT)
              onFailed.invoke(e)
        if (readyOps & SelectionKey.OP_WRITE) != 0 then
          IoLoop.disarm(k, SelectionKey.OP_WRITE)
          onWritable.invoke(())
        if (readyOps & SelectionKey.OP_READ) != 0 then read(k)

      def failed(e: Throwable): Unit = onFailed.invoke(e)

      private def read(k: SelectionKey): Unit =
        val inFlight = unread.get
        val room = if wanted && inFlight == 0 then loop.readBuffer.capacity else readAhead - inFlight
        if room <= 0 then IoLoop.disarm(k, SelectionKey.OP_READ)
        else
          val buffer = loop.readBuffer
          buffer.clear()
          if room < buffer.capacity then buffer.limit(room)
          val n =
            try channel.read(buffer)
            catch
              case NonFatal(e) =>
                readEnded = true
                IoLoop.disarm(k, SelectionKey.OP_READ)
                onFailed.invoke(e)
                0
          if n > 0 then
            if firstBytes.get == FirstNotRead && firstBytes.compareAndSet(FirstNotRead, FirstRead) then
              firstReadAt = gate.get.firstRead()
            buffer.flip()
            val bytes = ByteString(buffer)
            if unread.addAndGet(n) >= readAhead then IoLoop.disarm(k, SelectionKey.OP_READ)
            onReceived.invoke(bytes)
          else if n < 0 then
            readEnded = true
            IoLoop.disarm(k, SelectionKey.OP_READ)
            onPeerClosed.invoke(())

    // Reading again once the stream has taken what stopped it (on the loop's thread).
    private val resumeReading: Runnable = () =>
      if !readEnded && unread.get < readAhead then IoLoop.arm(key, SelectionKey.OP_READ)
    private val awaitWritable: Runnable = () => IoLoop.arm(key, SelectionKey.OP_WRITE)

    setHandlers(in, out, this)

    override def preStart(): Unit =
      // The stage ends itself (completeStage or failStage) once the socket is closed, as Pekko's does: with both ports
      // closed a write may still be on its way out.
      setKeepGoing(true)
      unclaimable match
        case Some(why) => fail(StreamTcpException(s"The connection from $remote cannot be served: $why"))
        case None =>
          endpoint match
            case _: Incoming =>
              register(SelectionKey.OP_READ, connectedNow = false)
              whenConnected()
            case o: Outgoing => open(o)

    private def register(ops: Int, connectedNow: Boolean): Unit =
      loop.execute(() =>
        if channel.isOpen then
          try
            key = loop.register(channel, ops, io)
            if connectedNow then onConnected.invoke(())
          catch case NonFatal(e) => onFailed.invoke(e))

    // An outgoing socket: opened here, so that a failure (out of files, a bad local address) fails this stage.
    private def open(o: Outgoing): Unit =
      scheduleOnce(ConnectTimer, o.connectTimeout)
      try
        val socket = SocketChannel.open()
        channel = socket
        socket.configureBlocking(false)
        o.options.foreach(_.beforeConnect(socket.socket()))
        o.localAddress.foreach(socket.socket().bind)
        if !o.remote.isUnresolved then connect(o.remote)
        else
          // As Pekko's outgoing connection: the name through Pekko's DNS extension, its cache first.
          val system = materializer.system
          val request = DnsProtocol.Resolve(o.remote.getHostString)
          Dns.cached(request)(system) match
            case Some(resolved) => whenResolved(resolved)
            case None =>
              val resolving = getStageActor {
                case (_, resolved: DnsProtocol.Resolved) => whenResolved(resolved)
                case (_, org.apache.pekko.actor.Status.Failure(e)) => fail(e)
                case _ => ()
              }
              Dns.resolve(request, system, resolving.ref).foreach(whenResolved)
      catch case NonFatal(e) => fail(e)

    private def whenResolved(resolved: DnsProtocol.Resolved): Unit =
      try connect(InetSocketAddress(resolved.address(), remote.getPort))
      catch case NonFatal(e) => fail(e)

    private def connect(address: InetSocketAddress): Unit =
      val done = channel.connect(address)
      register(if done then SelectionKey.OP_READ else SelectionKey.OP_CONNECT, connectedNow = done)

    private def whenConnected(): Unit =
      if !isConnected then
        isConnected = true
        cancelTimer(ConnectTimer)
        try
          endpoint match
            case o: Outgoing =>
              // As Pekko's: Nagle off by default, then the options that apply once connected.
              channel.setOption(StandardSocketOptions.TCP_NODELAY, java.lang.Boolean.TRUE)
              o.options.foreach(_.afterConnect(channel.socket()))
            case _: Incoming => ()
          connected.trySuccess(channel.getLocalAddress.asInstanceOf[InetSocketAddress])
        catch case NonFatal(e) => connected.tryFailure(e)
        if isClosed(in) then finishOutput() // the upstream finished before the socket connected
        else if !hasBeenPulled(in) then pull(in)

    override def onTimer(timerKey: Any): Unit = endpoint match
      case o: Outgoing => fail(ConnectException(s"Connect timeout of ${o.connectTimeout} expired"))
      case _: Incoming => ()

    private def release(n: Int): Unit =
      val before = unread.getAndAdd(-n)
      if before >= readAhead && before - n < readAhead then loop.execute(resumeReading)

    private def pushReceived(): Unit =
      val bytes =
        if received.size == 1 then received.dequeue()
        else received.dequeueAll(_ => true).foldLeft(ByteString.empty)(_ ++ _)
      wanted = false
      release(bytes.length)
      push(out, bytes)
      if peerClosed then peerDone()

    // The peer sent all it will: downstream completes; with the output shut too, the connection is over.
    private def peerDone(): Unit =
      if !isClosed(out) then complete(out)
      if outputShut then closeConnection()

    override def onPull(): Unit = if received.nonEmpty then pushReceived() else wanted = true

    override def onDownstreamFinish(cause: Throwable): Unit = cause match
      case _: SubscriptionWithCancelException.NonFailureCancellation =>
        // What arrives from now on is read and dropped: there is no closing of the reading side in TCP.
        received.foreach(b => release(b.length))
        received.clear()
        if !isConnected then () // closed once the upstream finishes
        else if halfClose then
          if isClosed(in) && !writing then closeConnection()
        else if !writing then closeConnection()
      case e =>
        abort()
        failStage(e)

    override def onPush(): Unit =
      val bytes = grab(in)
      if coalesce then
        gathered = gathered ++ bytes
        if unwritten == null && !flushScheduled then
          flushScheduled = true
          onGathered.invoke(())
        if unwritten == null && gathered.length < MaxGathered then pull(in)
      else
        unwritten = bytes
        writeOn()

    private def writing: Boolean = unwritten != null || gathered.nonEmpty

    private def startWrite(): Unit =
      if unwritten == null && gathered.nonEmpty then
        unwritten = gathered
        gathered = ByteString.empty
        writeOn()

    // Writes what the socket takes now, through a pooled direct buffer; the rest when it is writable again.
    private def writeOn(): Unit =
      if unwritten != null && !released then
        try
          var blocked = false
          while !blocked && unwritten.nonEmpty do
            val buffer = buffers.acquire()
            try
              val copied = unwritten.copyToBuffer(buffer)
              buffer.flip()
              val written = channel.write(buffer)
              unwritten = unwritten.drop(written)
              blocked = written < copied
            finally buffers.release(buffer)
          if blocked then loop.execute(awaitWritable)
          else
            unwritten = null
            if gathered.nonEmpty then startWrite()
            else if closeWhenWritten then finishOutput()
            else if !isClosed(in) && !hasBeenPulled(in) then pull(in)
        catch case NonFatal(e) => fail(e)

    override def onUpstreamFinish(): Unit =
      if !isConnected then () // half-closed (or closed) once connected
      else if writing then
        closeWhenWritten = true
        if !flushScheduled then startWrite()
      else finishOutput()

    override def onUpstreamFailure(e: Throwable): Unit =
      abort()
      failStage(e)

    // Nothing more to write: the socket closes, or, half-closed while the peer still sends, only its writing side.
    private def finishOutput(): Unit =
      if halfClose && !isClosed(out) then
        outputShut = true
        try channel.shutdownOutput()
        catch case NonFatal(e) => fail(e)
      else closeConnection()

    private def closeConnection(): Unit =
      releaseSocket(abortive = false)
      completeStage()

    private def abort(): Unit = releaseSocket(abortive = true)

    private def fail(e: Throwable): Unit =
      abort()
      val failure = StreamTcpException(SelectorConnectionStage.describe(endpoint, e))
      failure.initCause(e)
      connected.tryFailure(failure)
      failStage(failure)

    // The key is cancelled and the socket closed on the loop's thread, so that its descriptor is freed at once.
    private def releaseSocket(abortive: Boolean): Unit =
      if !released then
        released = true
        val socket = channel
        if socket != null then
          loop.execute(() =>
            try
              if key != null then key.cancel()
              if abortive && socket.isOpen then socket.setOption(StandardSocketOptions.SO_LINGER, Integer.valueOf(0))
            catch case NonFatal(_) => ()
            finally
              try socket.close()
              catch case NonFatal(_) => ())

    // Stopped without closing (the materializer shut down): aborted, as Pekko's connection actor aborts then.
    override def postStop(): Unit =
      firstTaken()
      connected.tryFailure(StreamTcpException(s"The connection to $remote stopped before it connected"))
      releaseSocket(abortive = true)

  private val ConnectTimer = "ConnectTimer"

object SelectorConnectionStage:
  /** Which socket a stage carries. */
  sealed trait Endpoint:
    def remote: InetSocketAddress

  /** An accepted socket, from `remote`; its first bytes are counted by its listener's `gate`, if it has one. */
  final case class Incoming(socket: IncomingSocket, remote: InetSocketAddress, gate: Option[AcceptGate] = None)
      extends Endpoint

  /**
   * A socket to open and connect to `remote` (resolved first when it is a name) from `localAddress` (any when None),
   * with Pekko's socket options, failing after `connectTimeout`.
   */
  final case class Outgoing(remote: InetSocketAddress, localAddress: Option[InetSocketAddress],
      options: List[SocketOption], connectTimeout: FiniteDuration, gatherWrites: Boolean = true) extends Endpoint

  // Bytes an outgoing connection gathers before it stops pulling and writes them.
  private val MaxGathered = 64 * 1024

  // Messages of the stream's own actor an outgoing write waits for its upstream's next elements (see `coalesce`).
  private val GatheringHops = 2

  private val FirstNotRead = 0
  private val FirstRead = 1
  private val FirstTaken = 2

  /** What a failure of this endpoint's connection says: what was being done, to whom, and what happened. */
  def describe(endpoint: Endpoint, e: Throwable): String = endpoint match
    case Outgoing(remote, _, _, _, _) => s"The connection to $remote failed: ${reason(e)}"
    case Incoming(_, remote, _) => s"The connection from $remote failed: ${reason(e)}"

  /** What happened, in words: the JDK's message with its class, and the limit to raise when it is out of files. */
  def reason(e: Throwable): String =
    val message = Option(e.getMessage).getOrElse(e.getClass.getSimpleName)
    if message.contains("Too many open files") then
      s"${e.getClass.getName}: $message (the process is at its limit of open files, ulimit -n)"
    else e match
      case _: java.net.UnknownHostException => s"unknown host $message"
      case _: IoLoop.Died => message
      case _ => s"${e.getClass.getName}: $message"
