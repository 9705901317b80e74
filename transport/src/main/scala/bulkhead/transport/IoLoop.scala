package bulkhead.transport

import java.nio.ByteBuffer
import java.nio.channels.{ClosedSelectorException, SelectableChannel, SelectionKey, Selector}
import java.util.PriorityQueue
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.atomic.{AtomicBoolean, AtomicLong}
import scala.concurrent.{Future, Promise}
import scala.util.control.NonFatal

/**
 * One thread waiting on a selector for its sockets' readiness, and doing their reads and accepts itself, as Netty's
 * and Spray's event loops do. A socket's bytes reach its stream in one hand-off (the loop reads them and invokes the
 * stream's callback), where Pekko's TCP layer takes a message to the connection actor, the read there, a message to
 * the stream and the stream's `ResumeReading` back for every read, and a write and its acknowledgement the same way.
 *
 * Everything that touches a selection key runs on this thread: other threads hand it tasks ([[execute]]), which wake
 * the selector once per batch. The loop never blocks but in `select`, and a handler must not either.
 *
 * Faults stay where they start, as in Pekko's TCP layer (an actor per connection) and Netty's loops (a catch per key):
 *  - a handler that throws fails its own connection ([[IoLoop.Handler.failed]]; the key is cancelled and the channel
 *    closed) and the loop goes on with the other keys and its tasks;
 *  - a task that throws is logged and the next runs;
 *  - `select` waits at most a second, so that a lost wake-up delays tasks by that much at worst (Pekko: 10 s);
 *  - a fatal error (an `OutOfMemoryError`, a `StackOverflowError`, a `LinkageError`) ends the loop: every registered
 *    handler is told ([[IoLoop.Handler.failed]], so its stream fails at once and a listener completes its
 *    `whenUnbound`), every channel closes, [[whenDead]] completes, `onDeath` is called, and from then on tasks run on
 *    the thread that hands them over, so that closes and unbinds still happen. What to do about a dead loop is the
 *    owner's (the service and the stub stop the process: Pekko's own threads exit the JVM on a fatal error).
 */
final class IoLoop(name: String, readBufferBytes: Int, onError: (String, Throwable) => Unit,
    onDeath: (String, Throwable) => Unit):
  private val selector = Selector.open()
  private val tasks = ConcurrentLinkedQueue[Runnable]()
  // A wake-up of the selector is pending: tasks added meanwhile do not need another.
  private val wakeUpPending = AtomicBoolean(false)
  @volatile private var running = true
  @volatile private var dead = false
  // The thread has left its loop (stopped or dead): tasks run on the thread that hands them over.
  @volatile private var ended = false
  private val death = Promise[Throwable]()
  private val thread = Thread(() => loop(), name)
  // Tasks due at a time, on this thread only: (due in nanoTime, sequence, task).
  private val timers = PriorityQueue[IoLoop.Timer]()
  private var timerSequence = 0L
  // Connections handed out and not yet claimed by a stream, oldest first (any thread adds).
  private val unclaimed = ConcurrentLinkedQueue[IncomingSocket]()

  // What the loop's gauges read (any thread); the window is the loop's own.
  private val busyNanos = AtomicLong()
  @volatile private var busyRatioLastSecond = 0.0
  private var windowStart = System.nanoTime()
  private var busyAtWindowStart = 0L
  private var roundStart = 0L // when this round's first ready key was handled

  /** The buffer every read of this loop goes through (one thread uses it); the bytes are copied out of it. */
  private[transport] val readBuffer: ByteBuffer = ByteBuffer.allocateDirect(readBufferBytes)

  // The classes of the loop's own failure paths, loaded now: out of descriptors, a class file cannot be opened, and a
  // class that fails to load there would kill the loop when it is needed most.
  timers.add(new IoLoop.Timer(0L, 0L, () => ()))
  timers.clear()
  IoLoop.Died(name, IllegalStateException("preloaded")).getMessage

  thread.setDaemon(true)
  thread.start()

  /** The thread's name: what a thread dump calls it. */
  def threadName: String = name

  /** Whether the loop still runs (false once it was stopped or died). */
  def alive: Boolean = running && !dead

  /** Completes with the fatal error the loop died of; never if it is stopped with [[shutdown]]. */
  def whenDead: Future[Throwable] = death.future

  /** The share of the last whole second the thread spent outside `select` (handling keys and running tasks). */
  def busyRatio: Double = busyRatioLastSecond

  /** Seconds the thread has spent outside `select` since it started. */
  def busySeconds: Double = busyNanos.get / 1e9

  /** Channels registered with the selector now (listeners included). */
  def registeredChannels: Int = try selector.keys().size() catch case NonFatal(_) => 0

  /** Tasks handed to the loop and not yet run. */
  def tasksQueued: Int = tasks.size()

  /** Runs `task` on the loop's thread, after what it is doing now; once the loop has ended, on the caller's thread. */
  def execute(task: Runnable): Unit =
    if ended then runInline(task)
    else
      tasks.add(task)
      if (Thread.currentThread() ne thread) && wakeUpPending.compareAndSet(false, true) then selector.wakeup()
      // The loop may have ended between the check and the add: what it did not run, this thread runs.
      if ended then drainInline()

  /** Registers `channel` for `ops` with `handler` as the key's attachment. On the loop's thread only. */
  private[transport] def register(channel: SelectableChannel, ops: Int, handler: IoLoop.Handler): SelectionKey =
    channel.register(selector, ops, handler)

  /** Releases the descriptors of channels closed while registered: the JDK closes such a channel's socket only when
   *  its key is deregistered, at the selector's next selection, so a port closed without it may still be taken for a
   *  moment after `close()` returned. Keys found ready are handled as in the loop. On the loop's thread only. */
  private[transport] def releaseClosed(): Unit =
    try selector.selectNow(key => ready(key))
    catch case NonFatal(_) => () // a closed selector has released them already
    // `selectNow` clears a wake-up asked meanwhile; the flag would still say one is pending and keep the next tasks'
    // hands from asking again: the loop's next `select` would then sleep its whole second with tasks queued.
    if wakeUpPending.get then selector.wakeup()

  /** Runs `task` on the loop's thread in `delayNanos` or a little later. On the loop's thread only. */
  private[transport] def after(delayNanos: Long)(task: Runnable): Unit =
    timerSequence += 1
    timers.add(new IoLoop.Timer(System.nanoTime() + delayNanos, timerSequence, task))

  /** Closes `socket`'s channel if no stream claims it by its deadline (Pekko's register-timeout). Any thread. */
  private[transport] def expireUnclaimed(socket: IncomingSocket): Unit =
    if ended then socket.expire()
    else
      unclaimed.add(socket)
      if ended then expireAll()

  /** Stops the thread; the channels still registered are closed. */
  def shutdown(): Unit =
    running = false
    try selector.wakeup()
    catch case NonFatal(_) => ()

  private def loop(): Unit =
    try
      while running do
        Thread.interrupted() // an interrupt would make every select return at once: nothing here interrupts on purpose
        val waitMillis = untilNextTimer()
        measureWindow(System.nanoTime())
        // A handler's own failure is caught per key (in `ready`); what escapes here is the selector's.
        roundStart = 0L
        try selector.select(key => ready(key), waitMillis)
        catch case NonFatal(e) if running => onError(s"$name: select failed", e)
        val tasksFrom = System.nanoTime()
        wakeUpPending.set(false)
        runTasks()
        runTimers(tasksFrom)
        expire(tasksFrom)
        busyNanos.addAndGet(System.nanoTime() - (if roundStart != 0L then roundStart else tasksFrom))
      closeAll(java.io.IOException(s"the selector thread $name stopped"))
      ended = true
      drainInline()
    catch
      case e: Throwable =>
        dead = true
        closeAll(IoLoop.Died(name, e))
        ended = true
        death.trySuccess(e)
        try onDeath(name, e)
        catch case NonFatal(_) => ()
        drainInline()

  // Every second or so: the share of the window the thread spent outside select.
  private def measureWindow(now: Long): Unit =
    val elapsed = now - windowStart
    if elapsed >= 1_000_000_000L then
      val busy = busyNanos.get
      busyRatioLastSecond = math.max(0.0, math.min(1.0, (busy - busyAtWindowStart) / elapsed.toDouble))
      windowStart = now
      busyAtWindowStart = busy

  private def untilNextTimer(): Long =
    val next = timers.peek()
    if next == null then IoLoop.MaxSelectMillis
    else math.max(1L, math.min(IoLoop.MaxSelectMillis, (next.due - System.nanoTime() + 999_999L) / 1_000_000L))

  private def ready(key: SelectionKey): Unit =
    if roundStart == 0L then roundStart = System.nanoTime()
    val handler = key.attachment().asInstanceOf[IoLoop.Handler]
    try
      if key.isValid then
        val ops = key.readyOps()
        if ops != 0 then handler.ready(key, ops)
    catch
      case NonFatal(e) =>
        // This connection's handler failed: it alone closes, the others go on.
        try key.cancel()
        finally
          try key.channel().close()
          catch case NonFatal(_) => ()
        try handler.failed(e)
        catch case NonFatal(f) => onError(s"$name: a failing handler failed again", f)

  private def runTasks(): Unit =
    var task = tasks.poll()
    while task != null do
      try task.run()
      catch case NonFatal(e) => onError(s"$name: a task failed", e)
      task = tasks.poll()

  private def runTimers(now: Long): Unit =
    var next = timers.peek()
    while next != null && next.due - now <= 0 do
      timers.poll()
      try next.task.run()
      catch case NonFatal(e) => onError(s"$name: a timed task failed", e)
      next = timers.peek()

  private def expire(now: Long): Unit =
    var head = unclaimed.peek()
    while head != null && (head.claimed || head.deadline - now <= 0) do
      unclaimed.poll()
      head.expire()
      head = unclaimed.peek()

  // Every channel closes and every handler is told, so that its stream fails now rather than at an idle timeout.
  private def closeAll(cause: Throwable): Unit =
    try
      selector.keys().forEach { key =>
        try key.channel().close()
        catch case NonFatal(_) => ()
        try key.attachment().asInstanceOf[IoLoop.Handler].failed(cause)
        catch case NonFatal(_) => ()
      }
      selector.close()
    catch case NonFatal(_) => ()
    expireAll()

  private def expireAll(): Unit =
    var socket = unclaimed.poll()
    while socket != null do
      socket.expire()
      socket = unclaimed.poll()

  private def runInline(task: Runnable): Unit =
    try task.run()
    catch
      case _: ClosedSelectorException => ()
      case NonFatal(e) => onError(s"$name (dead): a task failed", e)

  private def drainInline(): Unit =
    var task = tasks.poll()
    while task != null do
      runInline(task)
      task = tasks.poll()

object IoLoop:
  /** The longest `select` waits before the loop looks at its tasks and timers again. */
  val MaxSelectMillis = 1000L

  /** What a registered channel's readiness calls, on the loop's thread. */
  private[transport] trait Handler:
    def ready(key: SelectionKey, readyOps: Int): Unit
    /**
     * The channel's handling failed (its channel is closed already) or the loop died: the stream learns it here. Any
     * thread may call it once the loop is dead; it must only hand the failure over.
     */
    def failed(e: Throwable): Unit

  /** The failure a stream gets when its loop dies of `cause`. */
  final class Died(loop: String, cause: Throwable)
      extends java.io.IOException(s"the selector thread $loop died of $cause", cause)

  private final class Timer(val due: Long, val sequence: Long, val task: Runnable) extends Comparable[Timer]:
    def compareTo(o: Timer): Int =
      val byDue = java.lang.Long.compare(due - o.due, 0L)
      if byDue != 0 then byDue else java.lang.Long.compare(sequence, o.sequence)

  /** Clears `op` from `key`'s interest, if the key is still valid. On the loop's thread only. */
  private[transport] def disarm(key: SelectionKey, op: Int): Unit =
    if key != null && key.isValid then key.interestOps(key.interestOps() & ~op)

  /** Adds `op` to `key`'s interest, if the key is still valid. On the loop's thread only. */
  private[transport] def arm(key: SelectionKey, op: Int): Unit =
    if key != null && key.isValid then key.interestOps(key.interestOps() | op)
