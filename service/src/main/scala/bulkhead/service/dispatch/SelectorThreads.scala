package bulkhead.service.dispatch

import bulkhead.transport.IoLoops
import org.apache.pekko.actor.CoordinatedShutdown
import org.apache.pekko.actor.typed.ActorSystem

/**
 * The service's selector threads ([[Pools.ServerIo]], [[Pools.SoapIo]]): started with the actor system's logging and
 * stopped with it. A selector thread that dies of a fatal error takes the service down, loudly, as Pekko's own
 * threads exit the JVM on one (`pekko.jvm-exit-on-fatal-error`): the streams on it have failed, and a service left
 * running without its listener or its client would look alive and answer nothing. The ERROR names the thread and the
 * error; the actor system stops with [[SelectorThreads.Died]] as its reason, and `serve` exits 1.
 */
object SelectorThreads:

  /** Why the service stopped: a selector thread died of `cause`. */
  final case class Died(thread: String, cause: String) extends CoordinatedShutdown.Reason

  /** `threads` selector threads named after `pool`, each reading up to `readBufferBytes` at a time. */
  def start(pool: PoolName, threads: Int, readBufferBytes: Int)(using system: ActorSystem[?]): IoLoops =
    val classic = system.classicSystem
    val loops = IoLoops(pool.configPath, threads, readBufferBytes, (what, e) => classic.log.error(e, what),
      (thread, e) => stopService(thread, e))
    classic.registerOnTermination(loops.shutdown())
    loops

  private def stopService(thread: String, e: Throwable)(using system: ActorSystem[?]): Unit =
    val message = s"the selector thread $thread died of $e: every connection on it failed; the service stops"
    System.err.println(s"bulkhead service: $message")
    system.classicSystem.log.error(e, message)
    CoordinatedShutdown(system).run(Died(thread, e.toString))
