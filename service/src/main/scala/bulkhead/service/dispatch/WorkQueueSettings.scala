package bulkhead.service.dispatch

import scala.concurrent.duration.FiniteDuration

/** The shape of a [[WorkQueuePool]]: threads between core and max, then a bounded queue, then refusal. */
final case class WorkQueueSettings(core: Int, max: Int, queue: Int, keepAlive: FiniteDuration)
