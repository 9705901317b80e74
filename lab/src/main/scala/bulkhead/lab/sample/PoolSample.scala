package bulkhead.lab.sample

/**
 * One pool at one instant: how many threads, how many busy (not parked waiting for a task), how many of those are
 * blocked (sleeping, waiting, blocked on a monitor: holding a request without using a core), their states and frames.
 * `virtual`: its threads are virtual (a JSON dump's), one per task, started and ended with it: a pool without a size.
 */
final case class PoolSample(pool: String, threads: Int, busy: Int, states: Map[String, Int],
    busyFrames: Map[String, Int], blocked: Int = 0, virtual: Boolean = false):
  def idle: Int = threads - busy
  /** The frame most busy threads stand in (what they block on). */
  def commonBusyFrame: Option[String] = busyFrames.maxByOption(_._2).map(_._1)

object PoolSample:
  /** The pools of a dump; the JVM's own threads (GC, JIT, VM: no Java state, no frames) are not a pool's. */
  def of(dump: ThreadDump): Seq[PoolSample] =
    ThreadDump(dump.threads.filter(_.state != "UNKNOWN"), dump.deadlocks).byPool.toSeq.map { (pool, threads) =>
      val busy = threads.filterNot(_.idle)
      PoolSample(pool, threads.size, busy.size, threads.groupMapReduce(_.state)(_ => 1)(_ + _),
        busy.flatMap(blockingFrame).groupMapReduce(identity)(_ => 1)(_ + _), busy.count(_.state != "RUNNABLE"),
        virtual = threads.forall(_.virtual))
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
