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
  private val keys = mutable.Set.empty[(Long, WaitKind, Long)]
  private val started = mutable.Map.empty[Long, Long]
  private val ended = mutable.Map.empty[Long, Long]
  @volatile private var counted = false

  @volatile private var unread = Option.empty[String]

  /**
   * One event of the stream: a wait of a virtual thread, or its start or end; anything else is left. An event that
   * does not read as expected is skipped (the first one's error is kept): an exception would end the whole stream.
   */
  def add(e: RecordedEvent): Unit =
    try
      VirtualWait.of(e).foreach(add)
      VirtualWait.lifetime(e).foreach((id, start, at) => synchronized {
        counted = true
        if start then started(id) = at else ended(id) = at
      })
    catch case scala.util.control.NonFatal(x) =>
      if unread.isEmpty then unread = Some(s"${e.getEventType.getName}: $x")

  /** The first event that did not read, and why. */
  def unreadEvent: Option[String] = unread

  /** A wait, unless the same one (thread, kind, start) is known already: read-backs overlap. */
  def add(w: VirtualWait): Unit = synchronized {
    if keys.add((w.threadId, w.kind, w.startNanos)) then waits += w
  }

  /** Forgets waits that ended, and threads that ended, before `nanos`: nothing settled later can need them. */
  def dropEndedBefore(nanos: Long): Unit = synchronized {
    waits.foreach(w => if w.endNanos < nanos then keys.remove((w.threadId, w.kind, w.startNanos)))
    waits.filterInPlace(_.endNanos >= nanos)
    val over = ended.collect { case (id, e) if e < nanos => id }.toSet
    ended --= over
    started --= over
  }

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
