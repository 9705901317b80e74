package bulkhead.transport

import org.apache.pekko.actor.ActorSystem
import org.apache.pekko.io.Inet.SocketOption
import org.apache.pekko.stream.scaladsl.{Source, Tcp}

import scala.concurrent.Future
import scala.concurrent.duration.Duration

/**
 * What accepts an HTTP server's connections, as Pekko HTTP's bind would (`halfClose = false`, no idle timeout at this
 * level: the server's layer has its own): bulkhead's selector threads ([[SelectorBindSource]]) or Pekko's TCP actors,
 * with Pekko's own `Tcp.bind` for a batch of 1 and [[BatchAcceptSource]] above.
 */
object ServerSockets:

  /** Which transport carries a server's sockets. */
  enum Transport:
    /**
     * bulkhead's selector threads; each connection reads ahead up to `readAhead` bytes, and accepting pauses while a
     * hand-off to the server's stream waits longer than `pauseAbove` (see [[SelectorBindSource]]).
     */
    case Selector(loops: IoLoops, readAhead: Int, pauseAbove: Duration)
    /** Pekko's TCP actors (`pekko.io.tcp`), as Pekko HTTP binds. */
    case Pekko

  /** The connections of a listener on `interface:port`, `acceptBatch` accepted at a time. */
  def bind(transport: Transport, interface: String, port: Int, backlog: Int, options: Iterable[SocketOption],
      acceptBatch: Int)(using system: ActorSystem): Source[Tcp.IncomingConnection, Future[Tcp.ServerBinding]] =
    require(acceptBatch >= 1, s"acceptBatch must be at least 1, not $acceptBatch")
    transport match
      case Transport.Selector(loops, readAhead, pauseAbove) =>
        SelectorBindSource.bind(loops, interface, port, backlog, options, halfClose = false, batch = acceptBatch,
          readAhead = readAhead, pauseAbove = pauseAbove)
      case Transport.Pekko if acceptBatch == 1 =>
        Tcp(system).bind(interface, port, backlog, options.toList, halfClose = false, idleTimeout = Duration.Inf)
      case Transport.Pekko =>
        BatchAcceptSource.bind(system, interface, port, backlog, options, halfClose = false,
          idleTimeout = Duration.Inf, batch = acceptBatch)
