package bulkhead.transport

import org.apache.pekko.Done
import org.apache.pekko.actor.{ActorRef, ActorSystem, Terminated}
import org.apache.pekko.bulkhead.PekkoTcpInternals
import org.apache.pekko.io.Inet.SocketOption
import org.apache.pekko.io.{IO, Tcp as IoTcp}
import org.apache.pekko.io.Tcp.*
import org.apache.pekko.stream.*
import org.apache.pekko.stream.scaladsl.{Source, Tcp as StreamTcp}
import org.apache.pekko.stream.stage.*

import java.net.InetSocketAddress
import java.util.concurrent.atomic.AtomicLong
import scala.collection.mutable
import scala.concurrent.duration.*
import scala.concurrent.{ExecutionContext, Future, Promise}
import scala.jdk.DurationConverters.*

/**
 * `Tcp.bind` that accepts up to `batch` connections per request to the listener actor instead of one.
 *
 * Pekko's `ConnectionSourceStage` (TcpStages.scala, Pekko 1.2.1) binds in pull mode and sends the listener
 * `ResumeAccepting(1)` at each pull: one accepted connection per round trip stage -> listener -> selector -> listener
 * -> connection actor -> stage, each hop a task on a dispatcher that, in a connection storm, waits behind the tasks of
 * the connections already open. This is that stage with one change: it asks for `ResumeAccepting(batch)` when
 * downstream pulls and nothing is held, and holds the connections that arrive beyond demand (at most batch - 1;
 * the listener, in pull mode, accepts no more than asked). The listener stays armed while the batch is not used up, so
 * connections arriving one by one are accepted without a round trip too.
 *
 * Each connection's flow is built as Pekko builds it, with `private[pekko]` parts reached through
 * [[org.apache.pekko.bulkhead.PekkoTcpInternals]]. Upstream the change is a `batch` parameter of `Tcp.bind` (the
 * stage's `ResumeAccepting(1)` and a buffer): docs/transport.md.
 */
object BatchAcceptSource:

  /** As `Tcp(system).bind`, accepting up to `batch` connections per listener round trip. */
  def bind(system: ActorSystem, interface: String, port: Int, backlog: Int, options: Iterable[SocketOption],
      halfClose: Boolean, idleTimeout: Duration, batch: Int)
      : Source[StreamTcp.IncomingConnection, Future[StreamTcp.ServerBinding]] =
    require(batch >= 1, s"batch must be at least 1, not $batch")
    val bindShutdownTimeout =
      system.settings.config.getDuration("pekko.stream.materializer.subscription-timeout.timeout").toScala
    Source.fromGraph(Stage(IO(IoTcp)(using system), InetSocketAddress(interface, port), backlog, options.toList,
      halfClose, idleTimeout, bindShutdownTimeout, batch))

  private final class Stage(tcpManager: ActorRef, endpoint: InetSocketAddress, backlog: Int,
      options: List[SocketOption], halfClose: Boolean, idleTimeout: Duration, bindShutdownTimeout: FiniteDuration,
      batch: Int)
      extends GraphStageWithMaterializedValue[SourceShape[StreamTcp.IncomingConnection],
        Future[StreamTcp.ServerBinding]]:
    val out: Outlet[StreamTcp.IncomingConnection] = Outlet("BatchAcceptSource.out")
    override def initialAttributes: Attributes = Attributes.name("BatchAcceptSource")
    val shape: SourceShape[StreamTcp.IncomingConnection] = SourceShape(out)

    override def createLogicAndMaterializedValue(inheritedAttributes: Attributes)
        : (GraphStageLogic, Future[StreamTcp.ServerBinding]) =
      val bindingPromise = Promise[StreamTcp.ServerBinding]()
      val logic = new TimerGraphStageLogic(shape) with StageLogging:
        implicit def self: ActorRef = stageActor.ref

        private val connectionFlowsAwaitingInitialization = AtomicLong()
        private var listener: ActorRef = null
        private val unbindPromise = Promise[Unit]()
        private var unbindStarted = false
        private var unbound = false
        // Connections asked of the listener that have not arrived: the listener accepts at most this many more.
        private var asked = 0
        // Connections that arrived beyond downstream's demand, in order.
        private val held = mutable.Queue.empty[(Connected, ActorRef)]

        override def preStart(): Unit =
          getStageActor(receive)
          tcpManager ! IoTcp.Bind(self, endpoint, backlog, options, pullMode = true)

        private def askWhenDrained(): Unit =
          if (listener ne null) && !unbindStarted && asked == 0 && held.isEmpty && isAvailable(out) then
            asked = batch
            listener ! ResumeAccepting(batch)

        private def receive(evt: (ActorRef, Any)): Unit =
          val (sender, msg) = evt
          msg match
            case Bound(localAddress) =>
              listener = sender
              stageActor.watch(listener)
              askWhenDrained()
              val thisStage = self
              bindingPromise.success(PekkoTcpInternals.serverBinding(localAddress,
                () =>
                  // As Pekko's: unbind() may be called many times; the stage actor is invalid once stopped.
                  if !unbindPromise.isCompleted then thisStage.tell(Unbind, thisStage)
                  unbindPromise.future
                , unbindPromise.future.map(_ => Done)(ExecutionContext.parasitic)))
            case f: CommandFailed =>
              val ex = new BindFailedException:
                override def getMessage: String = s"Bind to $endpoint failed${f.cause.fold("")(c => s" because of $c")}"
              f.cause.foreach(ex.initCause)
              bindingPromise.failure(ex)
              unbindPromise.tryFailure(ex)
              failStage(ex)
            case c: Connected =>
              asked = math.max(0, asked - 1)
              // Downstream gone: the connection actor stops with this stage (its death pact with the bind handler).
              if isClosed(out) then ()
              else if unbound then emit(out, connectionFor(c, sender))
              else if isAvailable(out) then push(out, connectionFor(c, sender))
              else held.enqueue(c -> sender)
              askWhenDrained()
            case Unbind =>
              if !isClosed(out) && (listener ne null) then tryUnbind()
            case Unbound =>
              unbindCompleted()
            case Terminated(ref) if ref == listener =>
              if unbindStarted then unbindCompleted()
              else
                val ex = IllegalStateException(
                  s"IO Listener actor terminated unexpectedly for remote endpoint [${endpoint.getHostString}:" +
                    s"${endpoint.getPort}]")
                unbindPromise.tryFailure(ex)
                failStage(ex)
            case other =>
              log.warning("Unexpected message to BatchAcceptSource: [{}]", other.getClass)

        setHandler(out, new OutHandler:
          override def onPull(): Unit =
            if held.nonEmpty then
              val (c, connection) = held.dequeue()
              push(out, connectionFor(c, connection))
            else askWhenDrained()

          override def onDownstreamFinish(cause: Throwable): Unit =
            log.debug("Unbinding from {}:{} because downstream finished: {}", endpoint.getHostString,
              endpoint.getPort, cause)
            tryUnbind())

        private def connectionFor(connected: Connected, connection: ActorRef): StreamTcp.IncomingConnection =
          connectionFlowsAwaitingInitialization.incrementAndGet()
          PekkoTcpInternals.incomingConnection(connection, connected, halfClose, idleTimeout,
            () => connectionFlowsAwaitingInitialization.decrementAndGet())

        private def tryUnbind(): Unit =
          if (listener ne null) && !unbindStarted then
            unbindStarted = true
            setKeepGoing(true)
            listener ! Unbind

        // Connections accepted before the unbind are still handed downstream (as demand comes), then the stage
        // completes as Pekko's does.
        private def unbindCompleted(): Unit =
          stageActor.unwatch(listener)
          unbindPromise.trySuccess(())
          unbound = true
          val accepted = if isClosed(out) then Nil else held.toList
          held.clear()
          if accepted.isEmpty then finish()
          else emitMultiple(out, accepted.map((c, connection) => connectionFor(c, connection)), () => finish())

        private def finish(): Unit =
          if connectionFlowsAwaitingInitialization.get() == 0 then completeStage()
          else scheduleOnce(BindShutdownTimer, bindShutdownTimeout)

        override def onTimer(timerKey: Any): Unit = timerKey match
          case BindShutdownTimer => completeStage()
          case other => throw IllegalArgumentException(s"Unknown timer key $other")

        override def postStop(): Unit =
          unbindPromise.trySuccess(())
          bindingPromise.tryFailure(java.util.NoSuchElementException("Binding was unbound before it was completely finished"))

      (logic, bindingPromise.future)

  private val BindShutdownTimer = "BindShutdownTimer"
