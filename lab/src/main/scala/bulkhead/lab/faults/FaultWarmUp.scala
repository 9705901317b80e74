package bulkhead.lab.faults

import bulkhead.lab.load.{ClosedLoopUsers, UserGroup}
import bulkhead.lab.model.MetricsReading
import bulkhead.lab.process.{Served, Stack}
import bulkhead.lab.record.RequestLog

import scala.concurrent.duration.*

/**
 * The warm-up before a fault run (JIT, connections and pools; not recorded). A cold service given 200 concurrent
 * requests at once took seconds per request (JIT, a connection per call to the third party) and timed calls out,
 * opening the circuit breaker: so a tenth of the users first, then all, then a wait until the breaker is closed.
 */
object FaultWarmUp:
  def run(service: Served, users: Int, path: Int => String, d: FiniteDuration): Unit =
    val few = ClosedLoopUsers.start(UserGroup("warm-up-few", (users / 10).max(1), service.port, path), RequestLog())
    Thread.sleep(d.toMillis / 2)
    val all = ClosedLoopUsers.start(UserGroup("warm-up", users, service.port, path), RequestLog())
    Thread.sleep(d.toMillis / 2)
    few.stop()
    all.stop()
    val deadline = System.nanoTime() + 30.seconds.toNanos
    while Stack.get(service.url("/metrics")).toOption.flatMap(t => MetricsReading.parse(t).circuitState)
        .exists(_ > 0) && System.nanoTime() < deadline do Thread.sleep(200)
