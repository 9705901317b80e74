package bulkhead.service.soap

import org.apache.pekko.event.LoggingAdapter

import java.util.concurrent.atomic.{AtomicInteger, AtomicLong}

/**
 * Transport failures of the SOAP client in the service's log, at most one line a second with how many came since the
 * last: under load a failing third party (or a host pool refusing calls) fails hundreds of calls a second, and the
 * client only gets a fixed sentence, so the log is where the cause (the exception's own words) is kept.
 */
final class FailureLog(log: LoggingAdapter, intervalNanos: Long = 1_000_000_000L):
  private val last = AtomicLong(System.nanoTime() - intervalNanos)
  private val since = AtomicInteger()

  def failed(e: Throwable): Unit =
    since.incrementAndGet()
    val now = System.nanoTime()
    val before = last.get
    if now - before >= intervalNanos && last.compareAndSet(before, now) then
      val n = since.getAndSet(0)
      log.warning("SOAP call failed ({} since the last report): {}: {}", n, e.getClass.getSimpleName,
        Option(e.getMessage).getOrElse("").take(300))
