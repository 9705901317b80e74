package bulkhead.transport

import java.util.concurrent.atomic.AtomicInteger

/**
 * The selector threads of a server or a client, `<prefix>-1` ... `<prefix>-<threads>`: each new connection goes to
 * the next, in turn, and their writes share one pool of direct buffers. Stopped with [[shutdown]] (their threads are
 * daemons, so a JVM that exits without it is not held). `onDeath` is called on a loop's thread when it dies of a fatal
 * error (see [[IoLoop]]): the caller decides what a dead loop means for its process.
 */
final class IoLoops(prefix: String, threads: Int, readBufferBytes: Int, onError: (String, Throwable) => Unit,
    onDeath: (String, Throwable) => Unit):
  require(threads >= 1, s"io threads must be at least 1, not $threads")
  require(readBufferBytes >= 1024, s"the read buffer must be at least 1024 bytes, not $readBufferBytes")
  private val all = Vector.tabulate(threads)(i => IoLoop(s"$prefix-${i + 1}", readBufferBytes, onError, onDeath))
  private val turn = AtomicInteger()

  /** The direct buffers the writes of these loops' connections go through (a few per writing thread). */
  private[transport] val writeBuffers = WriteBuffers(readBufferBytes, maxIdle = IoLoops.IdleWriteBuffers)

  /** The loop that takes the next connection. */
  def next(): IoLoop = all(Math.floorMod(turn.getAndIncrement(), threads))

  /** The loops, in their threads' order: what their gauges read. */
  def loops: Seq[IoLoop] = all

  /** The loops' thread names. */
  def threadNames: Seq[String] = all.map(_.threadName)

  /** Stops every loop; their channels close. */
  def shutdown(): Unit = all.foreach(_.shutdown())

object IoLoops:
  /**
   * Write buffers kept between writes: writes hold one only for a `write` call, so about one per thread that writes
   * at once (the dispatcher's, 8 by default); beyond these they are allocated and dropped.
   */
  val IdleWriteBuffers = 32
