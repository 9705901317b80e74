package bulkhead.service.http

import org.apache.pekko.event.LoggingAdapter

import java.util.concurrent.atomic.{AtomicInteger, AtomicLong}

/**
 * The log Pekko's HTTP layer writes to, with what it says about clients (warnings and infos) kept to one line a second
 * and the count of those dropped since the last one. Pekko warns once per illegal header value (`Date: yesterday`, an
 * empty `Authorization`) and once per GET answered before its streamed body arrived: a request with 40 such headers
 * wrote 9 KB of log, so a flood of them wrote the disk full at the client's pace. These lines are about the client,
 * which gets its answer (the request is served, the header kept raw), so one a second keeps the evidence and
 * bounds the cost. Errors, which are the service's own, and debug lines pass as they come.
 */
final class ClientWarningLog(underlying: LoggingAdapter, intervalNanos: Long = 1_000_000_000L) extends LoggingAdapter:
  private val last = AtomicLong(System.nanoTime() - intervalNanos)
  private val since = AtomicInteger()

  def isErrorEnabled: Boolean = underlying.isErrorEnabled
  def isWarningEnabled: Boolean = underlying.isWarningEnabled
  def isInfoEnabled: Boolean = underlying.isInfoEnabled
  def isDebugEnabled: Boolean = underlying.isDebugEnabled

  def notifyError(message: String): Unit = underlying.error(message)
  def notifyError(cause: Throwable, message: String): Unit = underlying.error(cause, message)
  def notifyWarning(message: String): Unit = limited(message)(underlying.warning)
  def notifyInfo(message: String): Unit = limited(message)(underlying.info)
  def notifyDebug(message: String): Unit = underlying.debug(message)

  private def limited(message: String)(write: String => Unit): Unit =
    val n = since.incrementAndGet()
    val now = System.nanoTime()
    val before = last.get
    if now - before >= intervalNanos && last.compareAndSet(before, now) then
      since.addAndGet(-n)
      write(s"${message.linesIterator.nextOption().getOrElse("").take(300)} [$n client warnings since the last " +
        "written, at most one a second]")
