package bulkhead.transport

import java.util.concurrent.atomic.AtomicInteger

/**
 * Whether a listener of the selector transport may accept now, from how far the stream's dispatcher is behind. Pekko's
 * accept runs on that dispatcher and slows with it by itself; the selector thread does not block, and without this
 * would take every connection of a storm and queue their requests behind a dispatcher that cannot take them (a
 * blocked default dispatcher, seed 001's row 1): the excess should wait in the kernel's backlog instead, as it does
 * with Pekko's transport. It pauses accepting while
 *  - `maxFirstWaiting` connections have their first bytes read and not yet taken by their streams (the storm's first
 *    requests, before the delays below can show), or
 *  - the last hand-off to the dispatcher (an accepted connection, a connection's first bytes, a probe) waited longer
 *    than `pauseNanos`, or the oldest one waiting now has.
 * Connections that send nothing do not count: they wait for no dispatcher.
 */
private[transport] final class AcceptGate(pauseNanos: Long, maxFirstWaiting: Int):
  private val firstWaiting = AtomicInteger()
  // What the listener runs when first bytes waiting fall below the bound (set once, before connections exist).
  @volatile private var room: Runnable = () => ()
  @volatile private var waitingSince = 0L
  @volatile private var lastDelay = 0L

  /** A hand-off made at `sentAt` (nanoTime) reached the stream's thread now. Any thread. */
  def handedOff(sentAt: Long): Unit = lastDelay = System.nanoTime() - sentAt

  /** A connection's first bytes were read: returns when (nanoTime), for [[firstTaken]]. The loop's thread. */
  def firstRead(): Long =
    val now = System.nanoTime()
    if firstWaiting.getAndIncrement() == 0 then waitingSince = now
    now

  /** The stream took the first bytes read at `readAt` (0: it stopped before it took them). The stream's thread. */
  def firstTaken(readAt: Long): Unit =
    if firstWaiting.getAndDecrement() == maxFirstWaiting then room.run()
    if readAt != 0L then handedOff(readAt)

  /** Runs `task` whenever first bytes waiting fall below the bound again. */
  def onRoom(task: Runnable): Unit = room = task

  /** Whether accepting should wait, given the hand-offs the listener itself has waiting since `acceptedSince`. */
  def shouldPause(unseenAccepted: Int, acceptedSince: Long): Boolean =
    val now = System.nanoTime()
    firstWaiting.get >= maxFirstWaiting || lastDelay > pauseNanos ||
      (unseenAccepted > 0 && now - acceptedSince > pauseNanos) ||
      (firstWaiting.get > 0 && now - waitingSince > pauseNanos)
