package bulkhead.service.dispatch

import java.util.concurrent.ThreadFactory
import java.util.concurrent.atomic.AtomicInteger

/**
 * Daemon threads named `<prefix>-1`, `<prefix>-2`, ...: a thread dump groups them by pool without guessing, and they
 * never keep the JVM alive after the actor system has stopped.
 */
final class NamedThreads(prefix: String) extends ThreadFactory:
  private val counter = AtomicInteger()

  def newThread(task: Runnable): Thread =
    val t = Thread(task, s"$prefix-${counter.incrementAndGet()}")
    t.setDaemon(true)
    t
