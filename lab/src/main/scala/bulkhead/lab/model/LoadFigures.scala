package bulkhead.lab.model

/**
 * Answers of a run by status class (`2xx` .. `5xx`), and requests that got none: wrk's socket errors (connect, read,
 * write) and timeouts, or a closed-loop client's resets and read timeouts.
 */
final case class Answers(byClass: Map[String, Long], connectErrors: Long, readErrors: Long, writeErrors: Long,
    timeouts: Long):
  def answered: Long = byClass.values.sum
  /** Answers in the expected class (2xx unless the scenario says otherwise). */
  def expected(cls: String = "2xx"): Long = byClass.getOrElse(cls, 0L)
  def unanswered: Long = connectErrors + readErrors + writeErrors + timeouts
  /** Share of the requests that did not get the expected answer (0..1). */
  def failedShare(cls: String = "2xx"): Double =
    val all = answered + unanswered
    if all == 0 then 0.0 else (all - expected(cls)).toDouble / all

  def describe: String =
    val classes = byClass.toSeq.sortBy(_._1).map((c, n) => f"$n%,d x $c").mkString(", ")
    val none = Seq("connect" -> connectErrors, "read" -> readErrors, "write" -> writeErrors, "timeout" -> timeouts)
      .filter(_._2 > 0).map((k, n) => f"$n%,d $k").mkString(", ")
    if none.isEmpty then classes else s"$classes; no answer: $none"

object Answers:
  val Empty: Answers = Answers(Map.empty, 0, 0, 0, 0)

  /** `200` -> `2xx`. */
  def classOf(status: Int): String = s"${status / 100}xx"

/**
 * One second of the run as the load generator saw it: answers by class, clients active, latency, and requests that got
 * no answer (`unanswered`: None from a driver that counts those over the whole run only, as wrk does).
 */
final case class LoadSecond(second: Int, byClass: Map[String, Long], clients: Int, p50Ms: Option[Double],
    p99Ms: Option[Double], unanswered: Option[Long] = None)

/**
 * One route of a load of several (a targets file's): its answers by status class, and the requests that got none where
 * the driver tells them apart by route (wrk counts those over the whole run only).
 */
final case class RouteFigures(route: String, byClass: Map[String, Long], unanswered: Option[Long] = None):
  def answered: Long = byClass.values.sum
  /** Its rate of expected answers over the run's `seconds`. */
  def throughput(seconds: Double, expectedClass: String = "2xx"): Double =
    byClass.getOrElse(expectedClass, 0L) / seconds.max(1e-9)

/**
 * What a load driver measured, the same for every driver: answers by status, the latency distribution, the run second
 * by second. `durationSeconds` is the measured phase (a ramp's hold). `routes`: each route's answers, when the load
 * sent to several.
 */
final case class LoadFigures(driver: String, description: String, clients: Int, durationSeconds: Double,
    answers: Answers, latency: Latencies, seconds: Seq[LoadSecond], routes: Seq[RouteFigures] = Nil):
  /** The rate of expected answers: throughput. Errors are never throughput. */
  def throughput(expectedClass: String = "2xx"): Double = answers.expected(expectedClass) / durationSeconds
  /** Every answer per second, whatever its status. */
  def answeredPerSecond: Double = answers.answered / durationSeconds
