package org.apache.pekko.stream.impl.io

import org.apache.pekko.{Done, NotUsed}
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
 * Back-pressure as Pekko's pull-mode bind: at most `batch` accepted connections wait for downstream's demand; then the
 * loop stops accepting and the kernel's backlog holds the rest. `unbind()` closes the port at once; connections
 * accepted before it are still handed downstream.
 *
 * It lives in Pekko's package because `ServerBinding`'s constructor is `private[pekko]`.
 */
object SelectorBindSource:

  /** As `Tcp(system).bind` (no idle timeout: the caller adds its own), on `loops`. */
  def bind(loops: IoLoops, interface: String, port: Int, backlog: Int, options: Iterable[SocketOption],
      halfClose: Boolean, batch: Int, readAhead: Int)
      : Source[StreamTcp.IncomingConnection, Future[StreamTcp.ServerBinding]] =
    require(batch >= 1, s"batch must be at least 1, not $batch")
    require(readAhead >= 1, s"readAhead must be at least 1, not $readAhead")
    Source.fromGraph(Stage(loops, InetSocketAddress(interface, port), backlog, options.toList, halfClose, batch,
      readAhead))

  private final class Stage(loops: IoLoops, endpoint: InetSocketAddress, backlog: Int, options: List[SocketOption],
      halfClose: Boolean, batch: Int, readAhead: Int)
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
        private val server = ServerSocketChannel.open()
        private val unbindPromise = Promise[Unit]()
        // Accepted connections not yet handed downstream: shared between the loop and the stream.
        private val waiting = AtomicInteger()
        private var key: SelectionKey = null // the loop's thread only
        private var localAddress: InetSocketAddress = endpoint
        private val held = mutable.Queue.empty[SocketChannel]
        private var unbinding = false

        private val onAccepted = getAsyncCallback[SocketChannel](accepted)
        private val onUnbind = getAsyncCallback[Unit](_ => unbind())
        private val onUnbound = getAsyncCallback[Unit](_ => unbound())
        private val onAcceptFailed = getAsyncCallback[Throwable] { e =>
          log.warning("Accepting on {} failed, pausing 100 ms: {}", localAddress, e)
          scheduleOnce(ResumeAccepting, 100.millis)
        }

        private object acceptor extends IoLoop.Handler:
          def ready(k: SelectionKey, readyOps: Int): Unit =
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
                    onAcceptFailed.invoke(e)
                    null
              if channel == null then more = false
              else
                taken += 1
                if waiting.incrementAndGet() >= batch then
                  IoLoop.disarm(k, SelectionKey.OP_ACCEPT)
                  more = false
                // A connection that reaches a stage already stopped is closed, not leaked.
                onAccepted.invokeWithFeedback(channel).failed.foreach(_ => close(channel))(ExecutionContext.parasitic)

        private val resumeAccepting: Runnable = () =>
          if !unbinding && waiting.get < batch then IoLoop.arm(key, SelectionKey.OP_ACCEPT)

        setHandler(out, this)

        override def preStart(): Unit =
          try
            server.configureBlocking(false)
            server.setOption(StandardSocketOptions.SO_REUSEADDR, java.lang.Boolean.TRUE)
            options.foreach(_.beforeServerSocketBind(server.socket()))
            server.bind(endpoint, backlog)
            localAddress = server.getLocalAddress.asInstanceOf[InetSocketAddress]
            loop.execute(() =>
              if server.isOpen then
                try key = loop.register(server, SelectionKey.OP_ACCEPT, acceptor)
                catch case NonFatal(e) => onAcceptFailed.invoke(e))
            bindingPromise.success(StreamTcp.ServerBinding(localAddress)(
              () =>
                onUnbind.invoke(())
                unbindPromise.future
              , unbindPromise.future.map(_ => Done)(ExecutionContext.parasitic)))
          catch
            case NonFatal(e) =>
              close(server)
              val ex = new BindFailedException:
                override def getMessage: String = s"Bind failed because of $e"
              ex.initCause(e)
              bindingPromise.failure(ex)
              unbindPromise.tryFailure(ex)
              failStage(ex)

        private def accepted(channel: SocketChannel): Unit =
          if isClosed(out) then close(channel)
          else if isAvailable(out) && held.isEmpty then handOut(channel)
          else held.enqueue(channel)

        private def handOut(channel: SocketChannel): Unit =
          val before = waiting.getAndDecrement()
          if before >= batch && before - 1 < batch then loop.execute(resumeAccepting)
          push(out, connectionFor(channel))

        private def connectionFor(channel: SocketChannel): StreamTcp.IncomingConnection =
          val remote =
            try
              channel.configureBlocking(false)
              channel.setOption(StandardSocketOptions.TCP_NODELAY, java.lang.Boolean.TRUE)
              options.foreach(_.afterConnect(channel.socket()))
              channel.getRemoteAddress.asInstanceOf[InetSocketAddress]
            catch case NonFatal(_) => InetSocketAddress(0) // closed by the peer already: the stage fails at once
          val stage = SelectorConnectionStage(() => channel, loops.next(), remote, halfClose, readAhead, connectTimeout = None)
          StreamTcp.IncomingConnection(localAddress, remote, Flow.fromGraph(stage).mapMaterializedValue(_ => NotUsed))

        override def onPull(): Unit = if held.nonEmpty then handOut(held.dequeue())

        override def onDownstreamFinish(cause: Throwable): Unit =
          held.foreach(close)
          held.clear()
          unbind()

        override def onTimer(timerKey: Any): Unit = loop.execute(resumeAccepting)

        private def unbind(): Unit =
          if !unbinding then
            unbinding = true
            setKeepGoing(true)
            loop.execute(() =>
              if key != null then key.cancel()
              close(server)
              onUnbound.invoke(()))

        // The port is closed; connections accepted before are still handed downstream, then the stage completes.
        private def unbound(): Unit =
          unbindPromise.trySuccess(())
          val accepted = if isClosed(out) then Nil else held.toList
          held.clear()
          if accepted.isEmpty then completeStage()
          else emitMultiple(out, accepted.map(connectionFor), () => completeStage())

        override def postStop(): Unit =
          held.foreach(close)
          held.clear()
          if server.isOpen then loop.execute(() =>
            if key != null then key.cancel()
            close(server))
          unbindPromise.trySuccess(())
          bindingPromise.tryFailure(java.util.NoSuchElementException("Binding was unbound before it was completely finished"))

      (logic, bindingPromise.future)

  private val ResumeAccepting = "ResumeAccepting"

  private def close(channel: java.nio.channels.Channel): Unit =
    try channel.close()
    catch case NonFatal(_) => ()
