package bulkhead.service.dispatch

import scala.concurrent.duration.FiniteDuration

/**
 * The shape of a [[WorkQueuePool]]: threads between core and max, then a bounded queue, then refusal. `maxWait` bounds
 * how long a task may wait in the queue before its caller refuses it (the pool itself does not time tasks).
 */
final case class WorkQueueSettings(core: Int, max: Int, queue: Int, keepAlive: FiniteDuration,
    maxWait: FiniteDuration)
