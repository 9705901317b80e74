package bulkhead.lab.load

import bulkhead.lab.model.{LoadFigures, RouteFigures}
import bulkhead.lab.record.RequestLog

import java.nio.file.Path
import scala.concurrent.duration.*

/**
 * The lab's own closed loop as a load driver ([[ClosedLoopUsers]]), needing no tool on the machine: `users` clients,
 * each on its own kept-alive connection, for `duration`, a request given up after `timeout`. Several routes share the
 * users equally (the first ones one more when they do not divide), each user keeping to its route; answers are counted
 * per route from the users' log.
 */
final class ClosedLoopDriver(users: Int, duration: FiniteDuration, timeout: FiniteDuration) extends LoadDriver:
  require(users >= 1, s"a closed loop needs a user at least, was $users")
  def concurrency: Int = users
  def measuredSeconds: Double = duration.toMillis / 1000.0

  def describe(url: String): String = describe(Requests.get(url))
  override def describe(requests: Requests): String =
    s"the lab's closed loop: $users users for ${duration.toSeconds} s, ${requests.describe}"

  def run(url: String, dir: Path): Either[String, LoadFigures] = run(Requests.get(url), dir)

  override def run(requests: Requests, dir: Path): Either[String, LoadFigures] =
    val targets = requests.targets.take(users)
    val shares = targets.indices.map(i => users / targets.size + (if i < users % targets.size then 1 else 0))
    Tls.check(requests).map { _ =>
      val log = RequestLog()
      val groups = targets.zip(shares).map((r, n) => ClosedLoopUsers.start(UserGroup(requests.route(r), n, r.port,
        _ => r.target, readTimeout = timeout, request = Some(r), insecure = requests.insecure), log))
      Thread.sleep(duration.toMillis)
      groups.foreach(_.stop(timeout + 5.seconds))
      val entries = log.all
      val figures = ClosedLoopUsers.figures(entries, users, 0, measuredSeconds, describe(requests))
      val routes = requests.routes
      val inWindow = entries.filter(_.endSecond < measuredSeconds)
      figures.copy(routes = if routes.size < 2 then Nil else routes.map { route =>
        val mine = inWindow.filter(_.group == route)
        RouteFigures(route, mine.flatMap(_.outcome.status).groupMapReduce(bulkhead.lab.model.Answers.classOf)(_ =>
          1L)(_ + _), Some(mine.count(!_.answered).toLong))
      })
    }
