package org.apache.pekko.stream.impl.io

import java.util.concurrent.atomic.AtomicInteger

/**
 * The selector threads of a server, `<prefix>-1` ... `<prefix>-<threads>`: each new connection goes to the next, in
 * turn. Stopped with [[shutdown]] (their threads are daemons, so a JVM that exits without it is not held).
 */
final class IoLoops(prefix: String, threads: Int, readBufferBytes: Int, onError: (String, Throwable) => Unit):
  require(threads >= 1, s"io threads must be at least 1, not $threads")
  require(readBufferBytes >= 1024, s"the read buffer must be at least 1024 bytes, not $readBufferBytes")
  private val loops = Vector.tabulate(threads)(i => IoLoop(s"$prefix-${i + 1}", readBufferBytes, onError))
  private val turn = AtomicInteger()

  /** The loop that takes the next connection. */
  def next(): IoLoop = loops(Math.floorMod(turn.getAndIncrement(), threads))

  /** The loops' thread names. */
  def threadNames: Seq[String] = loops.map(_.threadName)

  /** Stops every loop; their channels close. */
  def shutdown(): Unit = loops.foreach(_.shutdown())
