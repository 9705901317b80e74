package bulkhead.lab.load

import bulkhead.lab.record.RequestLog

import scala.concurrent.duration.*

/**
 * Clients that ignore Retry-After: closed-loop keep-alive users that send their next request the moment an answer
 * comes, a 503 included, so that a service refusing (an open breaker, shedding above its limit) hears from them as
 * fast as it refuses.
 */
final class RetryStorm private (running: RunningGroup) extends HostileLoad:
  def connections: Int = running.group.users
  def stop(): Unit = running.stop()

object RetryStorm:
  def start(name: String, users: Int, port: Int, path: Int => String, log: RequestLog): RetryStorm =
    RetryStorm(ClosedLoopUsers.start(UserGroup(name, users, port, path, honourRetryAfter = false,
      readTimeout = 10.seconds), log))


