package bulkhead.lab.sample

/** One thread of a `jcmd <pid> Thread.print` dump (the format of jstack, JDK 17 to 25). */
final case class DumpedThread(name: String, state: String, frames: Seq[String], waitingOn: Option[String],
    lockedMonitors: Seq[String], blockedOn: Option[String]):
  /** The pool a thread belongs to: its name without the trailing counter (`...-blocking-pool-12` -> `...-pool`). */
  def pool: String = ThreadDump.poolOf(name)
  def topFrame: Option[String] = frames.headOption

  /** Parked waiting for a task: an idle pool thread, not a busy or blocked one. */
  def idle: Boolean = frames.take(12).exists(f => ThreadDump.IdleFrames.exists(f.contains))

/** A whole dump: its threads, and the deadlocks the JVM reported. */
final case class ThreadDump(threads: Seq[DumpedThread], deadlocks: Seq[String]):
  def byPool: Map[String, Seq[DumpedThread]] = threads.groupBy(_.pool)

object ThreadDump:
  /** Frames where a pool thread waits for its next task. */
  val IdleFrames: Seq[String] = Seq(
    "ForkJoinPool.awaitWork", "ThreadPoolExecutor.getTask", "LinkedBlockingQueue.take", "LinkedBlockingQueue.poll",
    "SynchronousQueue", "DelayedWorkQueue.take", "LinkedTransferQueue", "ArrayBlockingQueue.take",
    "ForkJoinPool.runWorker", "sun.nio.ch.EPoll.wait", "EPollSelectorImpl.doSelect", "io.netty.channel.epoll",
    "LightArrayRevolverScheduler.waitNanos", "Object.wait", "ReferenceQueue.remove", "Reference.waitForReferencePendingList",
    "SelectorImpl.select", "CleanerImpl.run", "DelayQueue.take", "HashedWheelTimer$Worker.waitForNextTick")

  private val Header = "^\"(.+?)\"(.*)$".r
  private val State = """^\s+java\.lang\.Thread\.State: (\S+).*$""".r
  private val Frame = """^\s+at (.+)$""".r
  private val Waiting = """^\s+- (?:parking to wait for|waiting on)\s+<[^>]+> \(a ([^)]+)\)$""".r
  private val Locked = """^\s+- locked <([^>]+)> \(a ([^)]+)\)$""".r
  private val Blocked = """^\s+- waiting to lock <([^>]+)> \(a ([^)]+)\)$""".r
  private val Suffix = """^(.*?)[-#]?\d+$""".r

  def poolOf(name: String): String = name match
    case Suffix(prefix) if prefix.nonEmpty => prefix.stripSuffix("-")
    case other => other

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
        block.collectFirst { case Waiting(cls) => cls },
        block.collect { case Locked(id, cls) => s"$id ($cls)" },
        block.collectFirst { case Blocked(id, cls) => s"$id ($cls)" })
    }
    val deadlocks =
      if deadlockStart < 0 then Nil
      else all.drop(deadlockStart).takeWhile(l => !l.startsWith("Java stack information")).filter(_.startsWith("\""))
        .map(_.stripSuffix(":").stripPrefix("\"").stripSuffix("\"")).distinct
    ThreadDump(threads, deadlocks)
