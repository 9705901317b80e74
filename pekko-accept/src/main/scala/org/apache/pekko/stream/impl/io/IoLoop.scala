package org.apache.pekko.stream.impl.io

import java.nio.ByteBuffer
import java.nio.channels.{SelectableChannel, SelectionKey, Selector}
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.atomic.AtomicBoolean
import scala.util.control.NonFatal

/**
 * One thread waiting on a selector for its sockets' readiness, and doing their reads and accepts itself, as Netty's
 * and Spray's event loops do. A socket's bytes reach its stream in one hand-off (the loop reads them and invokes the
 * stream's callback), where Pekko's TCP layer takes a message to the connection actor, the read there, a message to
 * the stream and the stream's `ResumeReading` back for every read, and a write and its acknowledgement the same way.
 *
 * Everything that touches a selection key runs on this thread: other threads hand it tasks ([[execute]]), which wake
 * the selector once per batch. The loop never blocks but in `select`, and a handler must not either.
 */
final class IoLoop(name: String, readBufferBytes: Int, onError: (String, Throwable) => Unit):
  private val selector = Selector.open()
  private val tasks = ConcurrentLinkedQueue[Runnable]()
  // A wake-up of the selector is pending: tasks added meanwhile do not need another.
  private val wakeUpPending = AtomicBoolean(false)
  @volatile private var running = true
  private val thread = Thread(() => loop(), name)

  /** The buffer every read of this loop goes through (one thread uses it); the bytes are copied out of it. */
  private[io] val readBuffer: ByteBuffer = ByteBuffer.allocateDirect(readBufferBytes)

  thread.setDaemon(true)
  thread.start()

  /** The thread's name: what a thread dump calls it. */
  def threadName: String = name

  /** Runs `task` on the loop's thread, after what it is doing now. */
  def execute(task: Runnable): Unit =
    tasks.add(task)
    if (Thread.currentThread() ne thread) && wakeUpPending.compareAndSet(false, true) then selector.wakeup()

  /** Registers `channel` for `ops` with `handler` as the key's attachment. On the loop's thread only. */
  private[io] def register(channel: SelectableChannel, ops: Int, handler: IoLoop.Handler): SelectionKey =
    channel.register(selector, ops, handler)

  /** Stops the thread; the channels still registered are closed. */
  def shutdown(): Unit =
    running = false
    selector.wakeup()

  private def loop(): Unit =
    try
      while running do
        try
          selector.select(key => ready(key))
          wakeUpPending.set(false)
          runTasks()
        catch case NonFatal(e) => onError(s"$name: the selector loop failed", e)
    finally
      try
        selector.keys().forEach(key => try key.channel().close() catch case NonFatal(_) => ())
        selector.close()
      catch case NonFatal(_) => ()

  private def ready(key: SelectionKey): Unit =
    if key.isValid then
      val ops = try key.readyOps() catch case NonFatal(_) => 0
      if ops != 0 then key.attachment().asInstanceOf[IoLoop.Handler].ready(key, ops)

  private def runTasks(): Unit =
    var task = tasks.poll()
    while task != null do
      try task.run()
      catch case NonFatal(e) => onError(s"$name: a task failed", e)
      task = tasks.poll()

object IoLoop:
  /** What a registered channel's readiness calls, on the loop's thread. */
  private[io] trait Handler:
    def ready(key: SelectionKey, readyOps: Int): Unit

  /** Clears `op` from `key`'s interest, if the key is still valid. On the loop's thread only. */
  private[io] def disarm(key: SelectionKey, op: Int): Unit =
    if key != null && key.isValid then key.interestOps(key.interestOps() & ~op)

  /** Adds `op` to `key`'s interest, if the key is still valid. On the loop's thread only. */
  private[io] def arm(key: SelectionKey, op: Int): Unit =
    if key != null && key.isValid then key.interestOps(key.interestOps() | op)
