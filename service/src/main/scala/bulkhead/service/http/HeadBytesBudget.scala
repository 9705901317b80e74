package bulkhead.service.http

import java.util.concurrent.atomic.AtomicLong

/**
 * The bytes of request heads in progress on every connection of one server, against `limit`: what
 * `max-head-bytes-in-progress` bounds. `max-head-bytes` bounds one head; nothing else bounds their sum, and a head in
 * progress costs Pekko's parser 2.1-2.3 times its bytes of heap, so 16,384 connections each holding 64 KiB would want
 * ~2.5 GB. Each connection's [[RequestHeadDeadline]] takes its head's bytes as they arrive and gives them back when
 * the head is whole (handed to Pekko's parser), answered 431/408/503, or the connection ends; a head that finds the
 * budget spent is answered 503, as Envoy's overload manager refuses what would pass its buffer limit.
 */
final class HeadBytesBudget(val limit: Long):
  require(limit > 0, s"the budget must be positive, was $limit")
  private val held = AtomicLong()

  /** Takes `bytes` if the total stays within the limit; false, and nothing taken, when it would pass it. */
  def tryTake(bytes: Long): Boolean =
    var now = held.get
    while now + bytes <= limit && !held.compareAndSet(now, now + bytes) do now = held.get
    now + bytes <= limit

  /** Gives back `bytes` taken before. */
  def giveBack(bytes: Long): Unit = if bytes != 0 then held.addAndGet(-bytes)

  /** Bytes of heads in progress now. */
  def inProgress: Long = held.get
