package bulkhead.service.dispatch.internal

import com.typesafe.config.Config
import org.apache.pekko.dispatch.*

import java.util.concurrent.{ExecutorService, RejectedExecutionException, ThreadFactory, ThreadPoolExecutor}

/**
 * Pekko's own executor for a dispatcher (fork-join, thread-pool or virtual-thread, named in `metered.executor`),
 * registered in [[ExecutorRegistry]] when Pekko creates it, so that /metrics and the lab can read its size, activity
 * and queue. Pekko instantiates it by reflection from `executor = "<this class>"`.
 */
final class MeteredExecutorConfigurator(config: Config, prerequisites: DispatcherPrerequisites)
    extends ExecutorServiceConfigurator(config, prerequisites):

  private val delegate: ExecutorServiceConfigurator = config.getString("metered.executor") match
    case "fork-join-executor" => ForkJoinExecutorConfigurator(config.getConfig("fork-join-executor"), prerequisites)
    case "thread-pool-executor" => ThreadPoolExecutorConfigurator(config.getConfig("thread-pool-executor"), prerequisites)
    case "virtual-thread-executor" =>
      VirtualThreadExecutorConfigurator(config.getConfig("virtual-thread-executor"), prerequisites)
    case other =>
      throw new IllegalArgumentException(
        s"metered.executor must be fork-join-executor, thread-pool-executor or virtual-thread-executor, was '$other'")

  override def isVirtualized: Boolean = delegate.isVirtualized

  def createExecutorServiceFactory(id: String, threadFactory: ThreadFactory): ExecutorServiceFactory =
    val factory = delegate.createExecutorServiceFactory(id, threadFactory)
    val systemName = threadFactory match
      case m: MonitorableThreadFactory => m.name.stripSuffix(s"-$id")
      case _ => ""
    new ExecutorServiceFactory:
      def createExecutorService: ExecutorService =
        val executor = factory.createExecutorService
        val metered = config.getString("metered.executor") match
          case "virtual-thread-executor" => CountingExecutorService(executor)
          case _ => executor
        executor match
          // Pekko runs a task a full thread pool refuses on the thread that submitted it: a thread that serves
          // requests, so blocking work would land on the default dispatcher, which is what the pool is there to
          // prevent. Refused instead; the submitter answers 503 (WorkRunner) or fails the call.
          case pool: ThreadPoolExecutor =>
            pool.setRejectedExecutionHandler((_, p) =>
              throw RejectedExecutionException(s"$id is full (${p.getQueue.size} tasks queued)"))
          case _ =>
        ExecutorRegistry.register(systemName, id, metered)
        metered
