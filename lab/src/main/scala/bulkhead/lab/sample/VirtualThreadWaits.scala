package bulkhead.lab.sample

import jdk.jfr.consumer.RecordedEvent

import scala.collection.mutable

/**
 * The virtual threads of one JVM over a run, from JFR events ([[VirtualWait]]): their waits, and their starts and ends
 * when those are recorded. At any instant of the run it gives what a thread dump would have shown of the virtual
 * threads in a recorded wait, read as a dump is ([[PoolSample.of]], [[WaitGraph.of]]), and how many were alive. Waits
 * shorter than the events' threshold, and waits JDK 25 records no event for (a virtual thread that parks on a
 * `java.util.concurrent` lock or queue, or blocks on a monitor, without pinning its carrier), are not among them.
 */
final class VirtualThreadWaits:
  private val waits = mutable.ArrayBuffer.empty[VirtualWait]
  private val started = mutable.Map.empty[Long, Long]
  private val ended = mutable.Map.empty[Long, Long]
  @volatile private var counted = false

  /** One event of the stream: a wait of a virtual thread, or its start or end; anything else is left. */
  def add(e: RecordedEvent): Unit =
    VirtualWait.of(e).foreach(add)
    VirtualWait.lifetime(e).foreach((id, start, at) => synchronized {
      counted = true
      if start then started(id) = at else ended(id) = at
    })

  def add(w: VirtualWait): Unit = synchronized(waits += w)

  def size: Int = synchronized(waits.size)

  /** Virtual threads in a recorded wait at `atNanos` (epoch nanoseconds), as dumped threads. */
  def dumpAt(atNanos: Long): ThreadDump = synchronized {
    ThreadDump(waits.filter(_.covers(atNanos)).groupBy(_.threadId).values.map(_.maxBy(_.startNanos).thread).toSeq, Nil)
  }

  /**
   * Virtual threads alive at `atNanos`, when starts and ends are recorded: those started before it and not ended,
   * and (for threads started before the stream) those ended after it.
   */
  def aliveAt(atNanos: Long): Option[Int] = synchronized {
    Option.when(counted) {
      val startedBefore = started.count((id, s) => s <= atNanos && ended.get(id).forall(_ > atNanos))
      val olderEndingAfter = ended.count((id, e) => !started.contains(id) && e > atNanos)
      startedBefore + olderEndingAfter
    }
  }

  /** The pools and resources of the virtual threads at `atNanos`, read as a dump's. */
  def readingAt(atNanos: Long): DumpReading =
    val dump = dumpAt(atNanos)
    DumpReading(PoolSample.of(dump), WaitGraph.of(dump))
