package bulkhead.lab.faults

import bulkhead.lab.load.{ClosedLoopUsers, LoadDriver, UserGroup}
import bulkhead.lab.model.{Latencies, LoadFigures}
import bulkhead.lab.record.{Goodput, RequestLog, RequestOutcome}

import java.net.URI
import java.nio.file.Path
import scala.concurrent.duration.*

/**
 * The undersized pool as a load: `users` closed-loop users on the URL's collection (`/customers` ->
 * `/customers/{id}`, ids 1..`customers`) of a service whose SOAP client runs `slots` calls at once, far fewer than the
 * users: above its cap the service must keep serving it and refuse the rest at once (503 with Retry-After). The first
 * `warmUp` is not counted (a JVM just started: JIT, first connections); `window` after it is. Users honour Retry-After
 * as polite clients do. Its figures are the counted window's; [[goodput]] adds what the verdict reads.
 */
final class GoodputDriver(val mode: String, val slots: Int, users: Int, customers: Int, warmUp: FiniteDuration,
    window: FiniteDuration, stubLatencyMs: Double, soapTimeout: FiniteDuration) extends LoadDriver:
  import GoodputDriver.*
  @volatile private var counted: Option[(Seq[RequestLog.Entry], Double)] = None

  def concurrency: Int = users
  override def measuredFrom: Double = warmUp.toMillis / 1000.0
  def measuredSeconds: Double = window.toMillis / 1000.0
  def describe(url: String): String =
    val cap = slots * 1000.0 / stubLatencyMs
    f"$users closed-loop users on $url/{id} (a SOAP client of $slots slots, the third party at " +
      f"$stubLatencyMs%.0f ms: a cap of $cap%.0f answers/s) for ${measuredFrom + measuredSeconds}%.0f s, the first " +
      f"$measuredFrom%.0f s not counted, waiting Retry-After after a 503"

  def run(url: String, dir: Path): Either[String, LoadFigures] =
    LoadDriver.requireLoopback(url)
    val log = RequestLog()
    val group = ClosedLoopUsers.start(UserGroup(s"undersized-$mode", users, URI.create(url).getPort,
      FaultRan.ids(url, customers)), log)
    try
      Thread.sleep((warmUp + window).toMillis)
      val to = (System.nanoTime() - log.t0Nanos) / 1e9
      val ended = group.stop()
      counted = Some((if ended then log.all else log.all :+ Unfinished(measuredFrom), to))
      Right(ClosedLoopUsers.figures(log.all, users, measuredFrom, to, describe(url)))
    finally group.abandon()

  /**
   * The counted window's figures, once the load ran, with what was read beside it: the third party's peak of calls
   * (shared by `sharedBy` services of `thirdPartySlots` slots in all) and the service's breaker openings.
   */
  def goodput(thirdPartyPeak: Option[Int], thirdPartySlots: Int, sharedBy: Int,
      breakerOpenings: Option[Double], thirdPartyPeakSecond: Option[Double] = None): Goodput =
    val (all, to) = counted.getOrElse(throw IllegalStateException("the undersized pool's load did not run"))
    val in = all.filter(e => e.endSecond >= measuredFrom && e.endSecond < to)
    def latencies(es: Seq[RequestLog.Entry]) = Option(es.map(_.latencyMs)).filter(_.nonEmpty).map(Latencies.ofMillis)
    val ok = in.filter(_.outcome == Ok)
    val refused = in.filter(_.outcome == Refused)
    Goodput(mode, slots, stubLatencyMs, soapTimeout.toMillis.toDouble, users, measuredFrom, to,
      in.groupMapReduce(_.outcome.label)(_ => 1)(_ + _), answersPerSecond(all, measuredFrom, to, stubLatencyMs / 1000),
      latencies(ok).map(_.p50Ms), latencies(refused).map(_.p50Ms), refused.map(_.latencyMs).maxOption,
      refused.count(_.retryAfter.isEmpty), thirdPartyPeak, thirdPartySlots, sharedBy, breakerOpenings,
      thirdPartyPeakSecond)

object GoodputDriver:
  /**
   * OK answers a second over `[from, to)`, each counted by the share of its call to the third party (the last
   * `callSeconds` of its latency; before it, it waited for a slot) that lies inside the window: Little's law on the
   * slots, their busy time over the window divided by a call's time. The slots answer in waves (all of them within a
   * few ms, once a call's time), so a count of the answers ending in the window is off by up to a wave (8 of 96 in
   * 12 s) by where its edges fall; shares are not.
   */
  def answersPerSecond(log: Seq[RequestLog.Entry], from: Double, to: Double, callSeconds: Double): Double =
    val busy = log.filter(_.outcome == Ok).map { e =>
      val start = e.endSecond - callSeconds.min(e.latencyMs / 1000)
      val inside = (e.endSecond.min(to) - start.max(from)).max(0)
      if e.endSecond > start then inside / (e.endSecond - start) else 0.0
    }.sum
    busy / (to - from).max(0.001)

  private val Ok = RequestOutcome.Status(200)
  private val Refused = RequestOutcome.Status(503)
  /** A user that never finished its request: counted as a request without an answer, in the window. */
  private def Unfinished(at: Double) = RequestLog.Entry("unfinished", at, at, 0, RequestOutcome.Timeout, None)
