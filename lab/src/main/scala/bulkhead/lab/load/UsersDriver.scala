package bulkhead.lab.load

import bulkhead.lab.model.{Answers, LoadFigures, RouteFigures}
import bulkhead.lab.record.RequestLog

import java.nio.file.Path
import scala.concurrent.duration.*

/**
 * The lab's own closed loop in its JVM ([[ClosedLoopUsers]]): `connections` users on keep-alive connections, each
 * sending the next request when the answer came, for `duration`; a request without an answer after `timeout` is a
 * timeout. What the lab loads with where wrk is not installed, or where wrk cannot go (several hosts): no tool to
 * install, every request recorded. The user's requests are sent as given (any host, HTTPS, method, headers, body);
 * several routes share the users equally (the first ones one more when they do not divide), each user keeping to its
 * route, and each route's answers are counted from the users' log.
 */
final class UsersDriver(connections: Int, duration: FiniteDuration, timeout: FiniteDuration) extends LoadDriver:
  require(connections >= 1, s"a closed loop needs a user at least, was $connections")
  def concurrency: Int = connections
  def measuredSeconds: Double = duration.toMillis / 1000.0

  def describe(url: String): String = describe(Requests.get(url))
  override def describe(requests: Requests): String =
    s"the lab's closed-loop users: $connections connections for ${duration.toSeconds} s, ${requests.describe}"

  def run(url: String, dir: Path): Either[String, LoadFigures] = run(Requests.get(url), dir)

  override def run(requests: Requests, dir: Path): Either[String, LoadFigures] =
    val targets = requests.targets.take(connections)
    val shares = targets.indices.map(i => connections / targets.size + (if i < connections % targets.size then 1 else 0))
    Tls.check(requests).map { _ =>
      val log = RequestLog()
      val groups = targets.zip(shares).map((r, n) => ClosedLoopUsers.start(UserGroup(requests.route(r), n, r.port,
        _ => r.target, readTimeout = timeout, request = Some(r), insecure = requests.insecure), log))
      Thread.sleep(duration.toMillis)
      val end = (System.nanoTime() - log.t0Nanos) / 1e9
      groups.foreach(_.stop())
      val entries = log.all
      val figures = ClosedLoopUsers.figures(entries, connections, 0.0, end, describe(requests))
      val routes = requests.routes
      val inWindow = entries.filter(_.endSecond < end)
      figures.copy(routes = if routes.size < 2 then Nil else routes.map { route =>
        val mine = inWindow.filter(_.group == route)
        RouteFigures(route, mine.flatMap(_.outcome.status).groupMapReduce(Answers.classOf)(_ => 1L)(_ + _),
          Some(mine.count(!_.answered).toLong))
      })
    }
