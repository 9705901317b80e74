package bulkhead.service.dispatch.internal

import java.util.concurrent.{ConcurrentHashMap, ExecutorService}

/**
 * The executors Pekko created for metered dispatchers, by actor system and dispatcher id. A process-wide map because
 * Pekko creates configurators by reflection and hands them nothing else; keyed by system so that several actor
 * systems in one JVM (tests) do not mix.
 */
private[dispatch] object ExecutorRegistry:
  private val executors = ConcurrentHashMap[(String, String), ExecutorService]()

  def register(system: String, dispatcherId: String, executor: ExecutorService): Unit =
    executors.put((system, dispatcherId), executor)

  def lookup(system: String, dispatcherId: String): Option[ExecutorService] =
    Option(executors.get((system, dispatcherId)))

  /** Forgets a system's executors once it has terminated. */
  def forget(system: String): Unit =
    executors.keySet().removeIf(_._1 == system)
