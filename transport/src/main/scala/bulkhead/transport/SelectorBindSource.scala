package bulkhead.transport

import org.apache.pekko.{Done, NotUsed}
import org.apache.pekko.bulkhead.PekkoTcpInternals
import org.apache.pekko.io.Inet.SocketOption
import org.apache.pekko.stream.*
import org.apache.pekko.stream.scaladsl.{Flow, Source, Tcp as StreamTcp}
import org.apache.pekko.stream.stage.*

import java.net.{InetSocketAddress, StandardSocketOptions}
import java.nio.channels.{SelectionKey, ServerSocketChannel, SocketChannel}
import java.util.concurrent.atomic.AtomicInteger
import scala.collection.mutable
import scala.concurrent.duration.*
import scala.concurrent.{ExecutionContext, Future, Promise}
import scala.util.control.NonFatal

/**
 * `Tcp.bind` on bulkhead's own selector threads ([[IoLoops]]) instead of Pekko's TCP actors: the listening socket is
 * accepted from by a loop, up to `batch` connections per readiness, each connection a [[SelectorConnectionStage]].
 *
 * Pekko's bind sends every accepted socket through its listener actor, a selection handler that creates a connection
 * actor, the actor's registration with its selector and a `Connected` back to the stream: about twenty actor messages
 * in a connection's life, each a task that wakes a parked thread of the dispatcher. Spray's connection was one actor; a
 * connection here is one stream, and its socket readiness one hand-off from the loop.
 *
 * What it keeps of Pekko's bind:
 *  - back-pressure as its pull-mode bind: at most `batch` accepted connections wait for downstream's demand; then the
 *    loop stops accepting and the kernel's backlog holds the rest;
 *  - a connection handed downstream that no stream materialises within `registerTimeout` is closed (Pekko's
 *    `register-timeout`, 5 s), and one materialised twice is refused;
 *  - with a finite `pauseAbove`, accepting pauses while the server's dispatcher is behind ([[AcceptGate]]: `batch`
 *    connections' first requests waiting for it, or a hand-off to it waiting longer than `pauseAbove`): Pekko's accept
 *    runs on that dispatcher and so slows with it, where this loop would otherwise take every connection and queue
 *    their requests behind the blocked threads; the excess waits in the kernel instead;
 *  - an accept that fails (out of descriptors) pauses accepting for 100 ms, a WARN a second at most;
 *  - `unbind()` closes the port at once; connections accepted before it are still handed downstream;
 *  - the loop's death (or its handler's failure) completes `whenUnbound` with that failure and fails the source.
 */
object SelectorBindSource:

  /** As `Tcp(system).bind` (no idle timeout: the caller adds its own), on `loops`. */
  def bind(loops: IoLoops, interface: String, port: Int, backlog: Int, options: Iterable[SocketOption],
      halfClose: Boolean, batch: Int, readAhead: Int, registerTimeout: FiniteDuration = DefaultRegisterTimeout,
      pauseAbove: Duration = Duration.Inf)
      : Source[StreamTcp.IncomingConnection, Future[StreamTcp.ServerBinding]] =
    require(batch >= 1, s"batch must be at least 1, not $batch")
    require(readAhead >= 1, s"readAhead must be at least 1, not $readAhead")
    require(registerTimeout > Duration.Zero, s"registerTimeout must be above zero, not $registerTimeout")
    Source.fromGraph(Stage(loops, InetSocketAddress(interface, port), backlog, options.toList, halfClose, batch,
      readAhead, registerTimeout, pauseAbove))

  /** Pekko's `pekko.io.tcp.register-timeout`. */
  val DefaultRegisterTimeout: FiniteDuration = 5.seconds

  private final class Stage(loops: IoLoops, endpoint: InetSocketAddress, backlog: Int, options: List[SocketOption],
      halfClose: Boolean, batch: Int, readAhead: Int, registerTimeout: FiniteDuration, pauseAbove: Duration)
      extends GraphStageWithMaterializedValue[SourceShape[StreamTcp.IncomingConnection],
        Future[StreamTcp.ServerBinding]]:
    val out: Outlet[StreamTcp.IncomingConnection] = Outlet("SelectorBindSource.out")
    override def initialAttributes: Attributes = Attributes.name("SelectorBindSource")
    val shape: SourceShape[StreamTcp.IncomingConnection] = SourceShape(out)

    override def createLogicAndMaterializedValue(inheritedAttributes: Attributes)
        : (GraphStageLogic, Future[StreamTcp.ServerBinding]) =
      val bindingPromise = Promise[StreamTcp.ServerBinding]()
      val logic = new TimerGraphStageLogic(shape) with OutHandler with StageLogging:
        private val loop = loops.next()
        private val unbindPromise = Promise[Unit]()
        private val gate = pauseAbove match
          case d: FiniteDuration => Some(AcceptGate(d.toNanos, batch))
          case _ => None
        // Accepted connections not yet handed downstream: shared between the loop and the stream.
        private val waiting = AtomicInteger()
        // Accepted connections the stream has not seen yet, and since when the oldest of them waits (nanoTime; the
        // loop writes it): the accept gate's view of the listener's own hand-offs.
        private val unseen = AtomicInteger()
        @volatile private var unseenSince = 0L
        @volatile private var unbinding = false
        private var server: ServerSocketChannel = null
        // The loop's thread only.
        private var key: SelectionKey = null
        private var paused = false // a probe is on its way through the dispatcher
        private var recheckScheduled = false
        // The stream's thread only.
        private var localAddress: InetSocketAddress = endpoint
        private val held = mutable.Queue.empty[SocketChannel]
        private var acceptFailures = 0
        private var lastAcceptWarning = 0L

        private val onAccepted = getAsyncCallback[(SocketChannel, Long)]((channel, at) => accepted(channel, at))
        private val onProbe = getAsyncCallback[Long] { at =>
          gate.foreach(_.handedOff(at))
          loop.execute(resumeAccepting)
        }
        private val onListening = getAsyncCallback[Unit](_ => listening())
        private val onUnbind = getAsyncCallback[Unit](_ => unbind())
        private val onUnbound = getAsyncCallback[Unit](_ => unbound())
        private val onAcceptFailed = getAsyncCallback[Throwable](acceptFailed)
        private val onListenerFailed = getAsyncCallback[Throwable] { e =>
          val why = s"The listener on $localAddress failed: ${SelectorConnectionStage.reason(e)}"
          val failure =
            if bindingPromise.isCompleted then StreamTcpException(why)
            else new BindFailedException { override def getMessage: String = why }
          failure.initCause(e)
          closeHeld()
          unbindPromise.tryFailure(failure)
          bindingPromise.tryFailure(failure)
          failStage(failure)
        }

        private object acceptor extends IoLoop.Handler:
          def ready(k: SelectionKey, readyOps: Int): Unit =
            if dispatcherSlow() then pause(k)
            else
              var taken = 0
              var more = true
              while more && taken < batch do
                val channel =
                  try server.accept()
                  catch
                    case NonFatal(e) =>
                      // Out of descriptors, typically: a level-triggered selector would report the socket again at
                      // once, so the loop stops accepting for a moment.
                      IoLoop.disarm(k, SelectionKey.OP_ACCEPT)
                      loop.after(AcceptRetryNanos)(resumeAccepting)
                      onAcceptFailed.invoke(e)
                      null
                if channel == null then more = false
                else
                  taken += 1
                  val now = System.nanoTime()
                  if unseen.getAndIncrement() == 0 then unseenSince = now
                  if waiting.incrementAndGet() >= batch then
                    IoLoop.disarm(k, SelectionKey.OP_ACCEPT)
                    more = false
                  // A connection that reaches a stage already stopped is closed, not leaked.
                  onAccepted.invokeWithFeedback((channel, now)).failed
                    .foreach(_ => close(channel))(ExecutionContext.parasitic)

          def failed(e: Throwable): Unit = onListenerFailed.invoke(e)

        // The stream's dispatcher is behind (see AcceptGate).
        private def dispatcherSlow(): Boolean = gate.exists(_.shouldPause(unseen.get, unseenSince))

        // Accepting stops until a probe through the stream's dispatcher comes back in time (on the loop's thread).
        private def pause(k: SelectionKey): Unit =
          IoLoop.disarm(k, SelectionKey.OP_ACCEPT)
          if !paused then
            paused = true
            onProbe.invoke(System.nanoTime())

        private val resumeAccepting: Runnable = () =>
          paused = false
          if !unbinding && waiting.get < batch && key != null then
            if !dispatcherSlow() then IoLoop.arm(key, SelectionKey.OP_ACCEPT)
            else if !recheckScheduled then
              // Still behind: look again a little later, with a probe if none is on its way.
              recheckScheduled = true
              loop.after(ProbeAgainNanos) { () =>
                recheckScheduled = false
                if !unbinding && !paused && key != null && key.isValid then
                  if dispatcherSlow() then pause(key) else resumeAccepting.run()
              }

        setHandler(out, this)
        gate.foreach(_.onRoom(() => loop.execute(resumeAccepting)))

        override def preStart(): Unit =
          try
            server = ServerSocketChannel.open()
            server.configureBlocking(false)
            server.setOption(StandardSocketOptions.SO_REUSEADDR, java.lang.Boolean.TRUE)
            options.foreach(_.beforeServerSocketBind(server.socket()))
            server.bind(endpoint, backlog)
            localAddress = server.getLocalAddress.asInstanceOf[InetSocketAddress]
            val listener = server
            loop.execute(() =>
              if listener.isOpen then
                try
                  key = loop.register(listener, SelectionKey.OP_ACCEPT, acceptor)
                  onListening.invoke(())
                catch case NonFatal(e) => onListenerFailed.invoke(e))
          catch
            case NonFatal(e) =>
              if server != null then close(server)
              val ex = new BindFailedException:
                override def getMessage: String = s"Bind to $endpoint failed because of $e"
              ex.initCause(e)
              bindingPromise.tryFailure(ex)
              unbindPromise.tryFailure(ex)
              failStage(ex)

        // Bound once the loop listens: a registration that failed fails the bind instead of a port never accepting.
        private def listening(): Unit =
          bindingPromise.trySuccess(PekkoTcpInternals.serverBinding(localAddress,
            () =>
              onUnbind.invoke(())
              unbindPromise.future
            , unbindPromise.future.map(_ => Done)(ExecutionContext.parasitic)))

        private def accepted(channel: SocketChannel, acceptedAt: Long): Unit =
          gate.foreach(_.handedOff(acceptedAt))
          unseen.decrementAndGet()
          if isClosed(out) then close(channel)
          else if isAvailable(out) && held.isEmpty then handOut(channel)
          else held.enqueue(channel)

        private def handOut(channel: SocketChannel): Unit =
          val before = waiting.getAndDecrement()
          if before >= batch && before - 1 < batch then loop.execute(resumeAccepting)
          push(out, connectionFor(channel))

        private def connectionFor(channel: SocketChannel): StreamTcp.IncomingConnection =
          val (local, remote) =
            try
              channel.configureBlocking(false)
              channel.setOption(StandardSocketOptions.TCP_NODELAY, java.lang.Boolean.TRUE)
              options.foreach(_.afterConnect(channel.socket()))
              (channel.getLocalAddress.asInstanceOf[InetSocketAddress],
                channel.getRemoteAddress.asInstanceOf[InetSocketAddress])
            catch case NonFatal(_) => (localAddress, InetSocketAddress(0)) // closed by the peer: its stage fails at once
          val socket = IncomingSocket(channel, System.nanoTime() + registerTimeout.toNanos)
          loop.expireUnclaimed(socket)
          val stage = SelectorConnectionStage(SelectorConnectionStage.Incoming(socket, remote, gate), loops.next(),
            loops.writeBuffers, halfClose, readAhead)
          StreamTcp.IncomingConnection(local, remote, Flow.fromGraph(stage).mapMaterializedValue(_ => NotUsed))

        override def onPull(): Unit = if held.nonEmpty then handOut(held.dequeue())

        override def onDownstreamFinish(cause: Throwable): Unit =
          closeHeld()
          unbind()

        private def acceptFailed(e: Throwable): Unit =
          acceptFailures += 1
          val now = System.nanoTime()
          if lastAcceptWarning == 0L || now - lastAcceptWarning >= 1_000_000_000L then
            val times = if acceptFailures > 1 then s" ($acceptFailures times since the last warning)" else ""
            log.warning("Accepting on {} failed{}: {}; accepting again in 100 ms", localAddress, times,
              SelectorConnectionStage.reason(e))
            lastAcceptWarning = now
            acceptFailures = 0

        private def unbind(): Unit =
          if !unbinding then
            unbinding = true
            setKeepGoing(true)
            val listener = server
            loop.execute(() =>
              if key != null then key.cancel()
              if listener != null then close(listener)
              // `whenUnbound` promises the port is free: a bind right after it must not find it taken.
              loop.releaseClosed()
              onUnbound.invoke(()))

        // The port is closed; connections accepted before are still handed downstream, then the stage completes.
        private def unbound(): Unit =
          unbindPromise.trySuccess(())
          val accepted = if isClosed(out) then Nil else held.toList
          held.clear()
          if accepted.isEmpty then completeStage()
          else emitMultiple(out, accepted.map(connectionFor), () => completeStage())

        private def closeHeld(): Unit =
          held.foreach(close)
          held.clear()

        override def postStop(): Unit =
          closeHeld()
          val listener = server
          if listener != null && listener.isOpen then loop.execute(() =>
            if key != null then key.cancel()
            close(listener))
          unbindPromise.trySuccess(())
          bindingPromise.tryFailure(java.util.NoSuchElementException("Binding was unbound before it was completely finished"))

      (logic, bindingPromise.future)

  private val AcceptRetryNanos = 100.millis.toNanos
  private val ProbeAgainNanos = 10.millis.toNanos

  private def close(channel: java.nio.channels.Channel): Unit =
    try channel.close()
    catch case NonFatal(_) => ()
