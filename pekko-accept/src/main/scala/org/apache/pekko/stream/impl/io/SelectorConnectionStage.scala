package org.apache.pekko.stream.impl.io

import org.apache.pekko.stream.*
import org.apache.pekko.stream.stage.*
import org.apache.pekko.util.ByteString

import java.net.{InetSocketAddress, StandardSocketOptions}
import java.nio.ByteBuffer
import java.nio.channels.{SelectionKey, SocketChannel}
import java.util.concurrent.atomic.AtomicInteger
import scala.collection.mutable
import scala.concurrent.duration.FiniteDuration
import scala.concurrent.{Future, Promise}
import scala.util.control.NonFatal

/**
 * A socket as a flow of bytes, without Pekko's TCP actors: the bytes pushed in are written to the socket by
 * the stream's own thread, and the bytes its [[IoLoop]] reads come out. What Pekko's connection stage does through a
 * connection actor in five messages a request (the read, `Received`, the write, its acknowledgement, `ResumeReading`),
 * this does in one hand-off from the loop to the stream.
 *
 * The socket is one accepted (`connectTimeout` None) or one this stage connects, without blocking, to `remoteAddress`
 * (a new socket at each materialisation: `socket` opens it); its bytes are pulled once it is connected.
 *
 * The loop reads ahead of demand up to `readAhead` bytes not yet pushed (then stops reading until the stream takes
 * them), so a connection holds at most `readAhead` plus one read's bytes. A write the socket does not take at once
 * waits for the socket to be writable before the next element is pulled. The closing follows Pekko's connection
 * stage: the peer's end of its bytes completes the output; the input's completion closes the socket once its bytes are
 * written (with `halfClose`, only the writing side while the peer still sends); a failure on either side aborts it
 * (RST) and fails the stage.
 */
private[io] final class SelectorConnectionStage(socket: () => SocketChannel, loop: IoLoop, remoteAddress: InetSocketAddress,
    halfClose: Boolean, readAhead: Int, connectTimeout: Option[FiniteDuration])
    extends GraphStageWithMaterializedValue[FlowShape[ByteString, ByteString], Future[InetSocketAddress]]:
  val in: Inlet[ByteString] = Inlet("SelectorConnection.in")
  val out: Outlet[ByteString] = Outlet("SelectorConnection.out")
  val shape: FlowShape[ByteString, ByteString] = FlowShape(in, out)
  override def initialAttributes: Attributes = Attributes.name("SelectorConnection")

  /** The socket's local address once it is connected (at once for an accepted one). */
  override def createLogicAndMaterializedValue(inheritedAttributes: Attributes)
      : (GraphStageLogic, Future[InetSocketAddress]) =
    val connected = Promise[InetSocketAddress]()
    val channel = socket()
    val logic = new TimerGraphStageLogic(shape) with InHandler with OutHandler:
      // Bytes the loop has read that have not been pushed downstream: shared between the loop and the stream.
      private val unread = AtomicInteger()

      // The loop's side (its thread only).
      private var key: SelectionKey = null
      private var readEnded = false

      // The stream's side.
      private val received = mutable.Queue.empty[ByteString]
      private var peerClosed = false
      private var unwritten: Array[ByteBuffer] = null
      // An outgoing connection gathers what its upstream pushes in one go (an HTTP client renders a request's head
      // and its entity as two elements) and writes it at once: one write, one segment, one read at the peer.
      private val coalesce = connectTimeout.isDefined
      private var gathered = ByteString.empty
      private var flushScheduled = false
      private var closeWhenWritten = false
      private var outputShut = false
      private var released = false

      private val onReceived = getAsyncCallback[ByteString](bytes =>
        if isClosed(out) then release(bytes.length)
        else
          received.enqueue(bytes)
          if isAvailable(out) then pushReceived())
      private val onPeerClosed = getAsyncCallback[Unit](_ =>
        peerClosed = true
        if received.isEmpty then peerDone())
      private val onWritable = getAsyncCallback[Unit](_ => writeOn())
      private val onFailed = getAsyncCallback[Throwable](e => fail(e))
      private val onConnected = getAsyncCallback[Unit](_ => whenConnected())
      // Runs after the elements the upstream has ready now were pushed (a message to this stage's own actor).
      private val onGathered = getAsyncCallback[Unit] { _ =>
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

        private def read(k: SelectionKey): Unit =
          val buffer = loop.readBuffer
          buffer.clear()
          val n =
            try channel.read(buffer)
            catch
              case NonFatal(e) =>
                readEnded = true
                IoLoop.disarm(k, SelectionKey.OP_READ)
                onFailed.invoke(e)
                0
          if n > 0 then
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

      override def preStart(): Unit = connectTimeout match
        case None =>
          loop.execute(() =>
            if channel.isOpen then
              try key = loop.register(channel, SelectionKey.OP_READ, io)
              catch case NonFatal(e) => onFailed.invoke(e))
          whenConnected()
        case Some(timeout) =>
          // An outgoing socket: connected without blocking, its bytes pulled once it is.
          scheduleOnce(ConnectTimer, timeout)
          try
            val done = channel.connect(remoteAddress)
            loop.execute(() =>
              if channel.isOpen then
                try
                  key = loop.register(channel, if done then SelectionKey.OP_READ else SelectionKey.OP_CONNECT, io)
                  if done then onConnected.invoke(())
                catch case NonFatal(e) => onFailed.invoke(e))
          catch case NonFatal(e) => fail(e)

      private def whenConnected(): Unit =
        cancelTimer(ConnectTimer)
        try connected.trySuccess(channel.getLocalAddress.asInstanceOf[InetSocketAddress])
        catch case NonFatal(e) => connected.tryFailure(e)
        if !isClosed(in) && !hasBeenPulled(in) then pull(in)

      override def onTimer(timerKey: Any): Unit =
        fail(java.net.ConnectException(s"connecting to $remoteAddress took longer than ${connectTimeout.getOrElse("")}"))

      private def release(n: Int): Unit =
        val before = unread.getAndAdd(-n)
        if before >= readAhead && before - n < readAhead then loop.execute(resumeReading)

      private def pushReceived(): Unit =
        val bytes =
          if received.size == 1 then received.dequeue()
          else received.dequeueAll(_ => true).foldLeft(ByteString.empty)(_ ++ _)
        release(bytes.length)
        push(out, bytes)
        if peerClosed then peerDone()

      // The peer sent all it will: downstream completes; with the output shut too, the connection is over.
      private def peerDone(): Unit =
        if !isClosed(out) then complete(out)
        if outputShut then closeConnection()

      override def onPull(): Unit = if received.nonEmpty then pushReceived()

      override def onDownstreamFinish(cause: Throwable): Unit = cause match
        case _: SubscriptionWithCancelException.NonFailureCancellation =>
          if halfClose && !isClosed(in) then () // keep writing; what arrives is dropped
          else if !writing then closeConnection()
          else closeWhenWritten = true
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
          unwritten = bytes.asByteBuffers.toArray
          writeOn()

      private def writing: Boolean = unwritten != null || gathered.nonEmpty

      private def startWrite(): Unit =
        if unwritten == null && gathered.nonEmpty then
          unwritten = gathered.asByteBuffers.toArray
          gathered = ByteString.empty
          writeOn()

      // Writes what the socket takes now; the rest when it is writable again.
      private def writeOn(): Unit =
        if unwritten != null then
          try
            var progress = true
            while progress && remaining(unwritten) do
              progress =
                if unwritten.length == 1 then channel.write(unwritten(0)) > 0 else channel.write(unwritten) > 0L
            if remaining(unwritten) then loop.execute(awaitWritable)
            else
              unwritten = null
              if gathered.nonEmpty then startWrite()
              else if closeWhenWritten then finishOutput()
              else if !isClosed(in) && !hasBeenPulled(in) then pull(in)
          catch case NonFatal(e) => fail(e)

      private def remaining(buffers: Array[ByteBuffer]): Boolean =
        var i = buffers.length - 1
        while i >= 0 && !buffers(i).hasRemaining do i -= 1
        i >= 0

      override def onUpstreamFinish(): Unit =
        if writing then
          closeWhenWritten = true
          if !flushScheduled then startWrite()
        else finishOutput()

      override def onUpstreamFailure(e: Throwable): Unit =
        abort()
        failStage(e)

      // Nothing more to write: the socket closes, or, half-closed while the peer still sends, only its writing side.
      private def finishOutput(): Unit =
        if halfClose && !isClosed(out) && !peerClosed then
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
        val failure = StreamTcpException(s"The connection to $remoteAddress failed: $e")
        connected.tryFailure(failure)
        failStage(failure)

      // The key is cancelled and the socket closed on the loop's thread, so that its descriptor is freed at once.
      private def releaseSocket(abortive: Boolean): Unit =
        if !released then
          released = true
          loop.execute(() =>
            try
              if key != null then key.cancel()
              if abortive && channel.isOpen then channel.setOption(StandardSocketOptions.SO_LINGER, Integer.valueOf(0))
            catch case NonFatal(_) => ()
            finally
              try channel.close()
              catch case NonFatal(_) => ())

      override def postStop(): Unit =
        connected.tryFailure(StreamTcpException(s"The connection to $remoteAddress stopped before it connected"))
        releaseSocket(abortive = false)

    (logic, connected.future)

  private val ConnectTimer = "ConnectTimer"

  // Bytes an outgoing connection gathers before it stops pulling and writes them.
  private val MaxGathered = 64 * 1024
