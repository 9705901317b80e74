package bulkhead.lab.sample

/**
 * One thread of a `jcmd <pid> Thread.print` dump (the format of jstack, JDK 17 to 25) or of a JSON dump
 * ([[JsonThreadDump]], which alone lists virtual threads: `virtual`, and the `container` that started them).
 * `carrying`: the thread was seen carrying a virtual thread, so its pool is the virtual-thread scheduler.
 */
final case class DumpedThread(name: String, state: String, frames: Seq[String], waitingOn: Option[String],
    lockedMonitors: Seq[String], blockedOn: Option[String], virtual: Boolean = false,
    container: Option[String] = None, carrying: Boolean = false, waitingOnIdentity: Option[String] = None,
    ownedSynchronizers: Seq[String] = Nil):
  /** The pool a thread belongs to, by [[PoolNames]]: `...-blocking-pool-12` -> `...-blocking-pool`, `qtp123-7` -> `qtp`. */
  def pool: String = PoolNames.of(this)
  def topFrame: Option[String] = frames.headOption

  /** Waiting for a task (see [[ThreadWait.idle]]): an idle pool thread, not a busy or blocked one. */
  def idle: Boolean = ThreadWait.idle(this)
  /** What it waits on. */
  lazy val waiting: ThreadWait = ThreadWait.of(this)
  /** Identities of the monitors and ownable synchronizers it holds. */
  def holds: Seq[String] = (lockedMonitors ++ ownedSynchronizers).map(ThreadWait.identityOf)

/** A whole dump: its threads, and the deadlocks the JVM reported. */
final case class ThreadDump(threads: Seq[DumpedThread], deadlocks: Seq[String]):
  /**
   * Threads by pool. The virtual-thread scheduler's carriers have a plain fork-join pool's names
   * (`ForkJoinPool-N-worker-M`); the pool of a thread seen carrying is labelled [[PoolNames.VirtualCarriers]].
   */
  def byPool: Map[String, Seq[DumpedThread]] =
    val carriers = threads.filter(_.carrying).map(_.pool).toSet
    threads.groupBy(t => if carriers(t.pool) then PoolNames.VirtualCarriers else t.pool)

object ThreadDump:
  /**
   * Frames of executors' own loops where a thread waits for its next task. A queue's take or poll is not among them:
   * a connection pool hands connections over through the same queues (HikariCP's `SynchronousQueue`), and a thread
   * waiting there is waiting for a resource. [[ThreadWait.idle]] adds selectors, accepts and shallow waits.
   */
  val IdleFrames: Seq[String] = Seq(
    "ForkJoinPool.awaitWork", "ThreadPoolExecutor.getTask", "DelayedWorkQueue.take",
    "io.netty.channel.epoll.Native.epoll", "LightArrayRevolverScheduler.waitNanos", "ReferenceQueue.remove",
    "Reference.waitForReferencePendingList", "CleanerImpl.run", "DelayQueue.take",
    "HashedWheelTimer$Worker.waitForNextTick", "QueuedThreadPool$Runner.idleJobPoll",
    "ReservedThreadExecutor$ReservedThread.waitForTask", "DelayScheduler.loop", "SingleThreadEventExecutor.takeTask")

  /**
   * Frames of loops that wait for their next task and also run it: a thread is idle in one only when nothing but the
   * JDK's own frames sit above it. A task that blocks at once (a `Runnable` that sleeps or reads a socket, executed
   * straight on a fork-join pool or a `java.util.Timer`) has a stack as short as an idle worker's, with its own frames
   * between the wait and the loop.
   */
  val LoopFrames: Seq[String] = Seq("ForkJoinPool.runWorker", "java.util.TimerThread.mainLoop")

  private val Header = "^\"(.+?)\"(.*)$".r
  private val State = """^\s+java\.lang\.Thread\.State: (\S+).*$""".r
  private val Frame = """^\s+at (.+)$""".r
  private val Waiting = """^\s+- (?:parking to wait for|waiting on)\s+<([^>]+)> \(a ([^)]+)\)$""".r
  /** A line under `Locked ownable synchronizers:` (`-l`): a j.u.c. lock this thread owns. */
  private val Owned = """^\s+- <([^>]+)> \(a ([^)]+)\)$""".r
  private val Locked = """^\s+- locked <([^>]+)> \(a ([^)]+)\)$""".r
  private val Blocked = """^\s+- waiting to lock <([^>]+)> \(a ([^)]+)\)$""".r
  /** A virtual thread mounted on this one: JDK 21+ prints the line, and the carrier runs its continuation. */
  private val CarrierMarks = Seq("Carrying virtual thread", "java.lang.VirtualThread.runContinuation")

  /** The pool label of a thread name: see [[PoolNames.label]]. */
  def poolOf(name: String): String = PoolNames.label(name)

  def parse(text: String): ThreadDump =
    val all = text.linesIterator.toVector
    val deadlockStart = all.indexWhere(_.startsWith("Found one Java-level deadlock"))
    val lines = if deadlockStart < 0 then all else all.take(deadlockStart)
    val starts = lines.indices.filter(i => lines(i).startsWith("\""))
    val threads = starts.zipWithIndex.map { (start, k) =>
      val end = if k + 1 < starts.size then starts(k + 1) else lines.size
      val block = lines.slice(start, end)
      val name = block.head match
        case Header(n, _) => n
        case other => other
      val state = block.collectFirst { case State(s) => s }.getOrElse("UNKNOWN")
      DumpedThread(name, state, block.collect { case Frame(f) => f },
        block.collectFirst { case Waiting(_, cls) => cls },
        block.collect { case Locked(id, cls) => s"$id ($cls)" },
        block.collectFirst { case Blocked(id, cls) => s"$id ($cls)" },
        carrying = block.exists(l => CarrierMarks.exists(l.contains)),
        waitingOnIdentity = block.collectFirst { case Waiting(id, _) => id },
        ownedSynchronizers = block.collect { case Owned(id, cls) => s"$id ($cls)" })
    }
    val deadlocks =
      if deadlockStart < 0 then Nil
      else all.drop(deadlockStart).takeWhile(l => !l.startsWith("Java stack information")).filter(_.startsWith("\""))
        .map(_.stripSuffix(":").stripPrefix("\"").stripSuffix("\"")).distinct
    ThreadDump(threads, deadlocks)
