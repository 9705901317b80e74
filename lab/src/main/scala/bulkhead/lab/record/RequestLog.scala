package bulkhead.lab.record

import java.util.concurrent.ConcurrentLinkedQueue
import scala.jdk.CollectionConverters.*

/**
 * Every request the lab's own client sent, and what came of it: an HTTP status, or no answer (and why). Requests are
 * counted when written, answers when read, so `sent == answered` is a real check, not an identity.
 */
final class RequestLog(val t0Nanos: Long = System.nanoTime()):
  private val entries = ConcurrentLinkedQueue[RequestLog.Entry]()

  def record(group: String, startNanos: Long, outcome: RequestOutcome, retryAfter: Option[String]): Unit =
    val now = System.nanoTime()
    entries.add(RequestLog.Entry(group, (startNanos - t0Nanos) / 1e9, (now - t0Nanos) / 1e9,
      (now - startNanos) / 1e6, outcome, retryAfter))

  def all: Seq[RequestLog.Entry] = entries.asScala.toSeq

object RequestLog:
  /** One request: when it started and ended (seconds since the log's start), and what came of it. */
  final case class Entry(group: String, startSecond: Double, endSecond: Double, latencyMs: Double,
      outcome: RequestOutcome, retryAfter: Option[String]):
    def answered: Boolean = outcome.answered
