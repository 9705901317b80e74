package bulkhead.lab.sample

/**
 * One pool at one instant: how many threads, how many busy (not parked waiting for a task), how many of those are
 * blocked (sleeping, waiting, blocked on a monitor: holding a request without using a core), their states and frames.
 * `virtual`: its threads are virtual (a JSON dump's), one per task, started and ended with it: a pool without a size.
 * `waits`: its busy threads by what they wait on ([[WaitKind]] keys, or a resource's [[ResourceSample.key]]);
 * `sites`: by their first frame outside the JDK; `eventLoop`: its threads run an event loop ([[EventLoops]]), and
 * `runs` the packages its busy threads run (an event loop's only: which framework's way moves work off it);
 * `computing`: its threads on a core by the code they run (their first frame outside the JDK; a thread of the JDK's
 * alone, such as the one taking the dump, is the JVM's housekeeping): where the CPU goes, as far as sampled stacks tell.
 */
final case class PoolSample(pool: String, threads: Int, busy: Int, states: Map[String, Int],
    busyFrames: Map[String, Int], blocked: Int = 0, virtual: Boolean = false, waits: Map[String, Int] = Map.empty,
    sites: Map[String, Int] = Map.empty, eventLoop: Boolean = false, runs: Seq[String] = Nil,
    computing: Map[String, Int] = Map.empty):
  def idle: Int = threads - busy
  /** Busy threads queued on a resource inside the JVM (a lock, a semaphore, a pool's borrow): see [[WaitGraph]]. */
  def queued: Int = waits.filter((k, _) => !PoolSample.Terminal(k)).values.sum
  /** Where most busy threads stand in code outside the JDK (the application frame that blocks). */
  def commonSite: Option[String] = sites.maxByOption(_._2).map(_._1)
  /** The frame most busy threads stand in (what they block on). */
  def commonBusyFrame: Option[String] = busyFrames.maxByOption(_._2).map(_._1)

object PoolSample:
  /** What a busy thread does when it holds nothing further inside the JVM: [[WaitKind]] keys. */
  val Terminal: Set[String] = Set(WaitKind.Running.key, WaitKind.Sleeping.key, WaitKind.Socket.key)

  /**
   * The pools of a dump; the JVM's own threads (GC, JIT, VM: no Java state, no frames) are not a pool's. `loops`: the
   * event-loop frames seen in earlier dumps of the same JVM ([[EventLoops]]).
   */
  def of(dump: ThreadDump, loops: Set[String] = Set.empty): Seq[PoolSample] =
    val seen = WaitGraph.seen(dump)
    val loopFrames = loops ++ EventLoops.frames(seen.map(_.thread))
    seen.groupBy(_.pool).toSeq.map { (pool, all) =>
      val threads = all.map(_.thread)
      val busy = all.filterNot(_.waiting.kind == WaitKind.Idle)
      def count(xs: Seq[String]) = xs.groupMapReduce(identity)(_ => 1)(_ + _)
      PoolSample(pool, threads.size, busy.size, count(threads.map(_.state)),
        count(busy.flatMap(s => blockingFrame(s.thread))), busy.count(_.thread.state != "RUNNABLE"),
        virtual = threads.forall(_.virtual),
        waits = count(busy.map(s => if s.waiting.queued then ResourceSample.key(s.waiting) else s.waiting.kind.key)),
        sites = count(busy.flatMap(_.waiting.site)),
        eventLoop = threads.exists(t => EventLoops.runsLoop(t, loopFrames)),
        runs = if threads.exists(t => EventLoops.runsLoop(t, loopFrames)) then EventLoops.packages(busy.map(_.thread))
          else Nil,
        computing = count(busy.filter(_.waiting.kind == WaitKind.Running).flatMap(_.waiting.site)))
    }.sortBy(_.pool)

  /** Frames of the parking machinery: a thread parked in them waits inside the frame below, which names the wait. */
  private val Parking = Seq("jdk.internal.misc.Unsafe.park", "java.lang.VirtualThread.park", "java.util.concurrent.locks.",
    "CompletableFuture$Signaller", "CompletableFuture.waitingGet", "CompletableFuture.timedGet", "CompletableFuture.get", "ForkJoinPool.managedBlock",
    "ForkJoinPool.unmanagedBlock", "ForkJoinPool.compensatedBlock")

  /** Where a busy thread stands: its top frame, or the first frame below the parking machinery. */
  def blockingFrame(t: DumpedThread): Option[String] =
    t.frames.map(frameName).find(f => !Parking.exists(f.contains)).orElse(t.topFrame.map(frameName))

  /** `java.lang.Thread.sleep0(java.base@25/Native Method)` -> `java.lang.Thread.sleep0`. */
  def frameName(frame: String): String = frame.takeWhile(_ != '(')
