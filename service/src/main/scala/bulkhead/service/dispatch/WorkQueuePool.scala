package bulkhead.service.dispatch

import java.util.concurrent.*

/**
 * A bounded pool that grows from `core` to `max` threads before it queues, then queues up to `queue` tasks, then
 * refuses: the behaviour of CXF's `AutomaticWorkQueueImpl`, the work queue (5..25 threads) that capped the original
 * blocking SOAP client at 25 calls at once. A plain ThreadPoolExecutor queues first and grows only when the queue is
 * full, which would run such a client 5 calls at a time.
 */
object WorkQueuePool:

  def apply(pool: PoolName, settings: WorkQueueSettings): ThreadPoolExecutor =
    val queue = GrowFirstQueue(settings.queue.max(1))
    val refuse: RejectedExecutionHandler = (task, executor) =>
      if executor.isShutdown || !queue.offerQueued(task, settings.queue) then
        throw RejectedExecutionException(s"${pool.configPath} is full")
    val executor = ThreadPoolExecutor(settings.core, settings.max, settings.keepAlive.toMillis, TimeUnit.MILLISECONDS,
      queue, NamedThreads(pool.configPath), refuse)
    queue.executor = executor
    executor

  /** Refuses a task (so the pool starts a thread) while the pool can grow and no thread is idle. */
  private final class GrowFirstQueue(capacity: Int) extends LinkedBlockingQueue[Runnable](capacity):
    @volatile var executor: ThreadPoolExecutor = scala.compiletime.uninitialized

    override def offer(task: Runnable): Boolean =
      val e = executor
      val idle = e.getPoolSize - e.getActiveCount > size()
      if !idle && e.getPoolSize < e.getMaximumPoolSize then false else super.offer(task)

    def offerQueued(task: Runnable, limit: Int): Boolean = limit > 0 && super.offer(task)
