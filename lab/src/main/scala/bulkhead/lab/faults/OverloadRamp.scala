package bulkhead.lab.faults

import bulkhead.lab.load.{ClosedLoopUsers, RequestLog, RequestOutcome, RunningGroup, UserGroup}
import bulkhead.lab.model.Latencies
import bulkhead.lab.process.Served
import bulkhead.lab.sample.CpuUsage

import java.net.URI
import java.net.http.{HttpClient, HttpRequest, HttpResponse}
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.atomic.AtomicBoolean
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*

/** One step of the overload ramp: users as a multiple of the in-flight limit, and what they got. */
final case class OverloadStep(factor: Double, users: Int, okPerSecond: Double, shedPerSecond: Double,
    okP50Ms: Double, okP99Ms: Double, shedP50Ms: Double, shedWithoutRetryAfter: Int, otherStatuses: Map[String, Int],
    unanswered: Int, helloMaxMs: Double, healthMaxMs: Double, probesFailed: Int, serviceCores: Double,
    machineBusy: Double)

/**
 * Load from 0.5x to 3x of `max-in-flight` on the enrichment route: above the limit the service must answer 503 with
 * Retry-After at once (not queue), keep admitted requests near the third party's latency, and keep /hello and
 * /health answering. Users honour Retry-After as polite clients do.
 */
object OverloadRamp:
  val Factors: Seq[Double] = Seq(0.5, 1.0, 1.5, 2.0, 3.0)
  private val Ok = RequestOutcome.Status(200)
  private val Shed = RequestOutcome.Status(503)

  def run(service: Served, maxInFlight: Int, customers: Int, step: FiniteDuration, progress: String => Unit)
      : Seq[OverloadStep] =
    val log = RequestLog()
    val probes = ConcurrentLinkedQueue[(String, Double, Double, Boolean)]() // path, end second, ms, ok
    val probing = AtomicBoolean(true)
    val client = HttpClient.newBuilder().connectTimeout(java.time.Duration.ofSeconds(5)).build()
    val prober = Thread(() =>
      while probing.get do
        for p <- Seq("/hello", "/health") do
          val start = System.nanoTime()
          val ok =
            try client.send(HttpRequest.newBuilder(URI.create(service.url(p))).timeout(java.time.Duration
              .ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200
            catch case _: Exception => false
          val end = System.nanoTime()
          probes.add((p, (end - log.t0Nanos) / 1e9, (end - start) / 1e6, ok))
        Thread.sleep(100)
    , "lab-overload-probe")
    prober.setDaemon(true)
    prober.start()
    var groups = Vector.empty[RunningGroup]
    var users = 0
    val pid = service.child.pid
    val windows = Factors.map { f =>
      val target = (maxInFlight * f).round.toInt
      groups :+= ClosedLoopUsers.start(UserGroup(s"x$f", target - users, service.port,
        n => s"/customers/${n % customers + 1}"), log)
      users = target
      Thread.sleep(1000) // the step's transition, not measured
      val from = (System.nanoTime() - log.t0Nanos) / 1e9
      val cpu0 = CpuUsage.seconds(pid)
      val busy0 = CpuUsage.machineBusy()
      Thread.sleep((step - 1.second).toMillis)
      val to = (System.nanoTime() - log.t0Nanos) / 1e9
      val cores = for a <- cpu0; b <- CpuUsage.seconds(pid) yield (b - a) / (to - from)
      val busy = for (b0, t0) <- busy0; (b1, t1) <- CpuUsage.machineBusy() yield (b1 - b0).toDouble / (t1 - t0).max(1)
      progress(f"  ${f}x: $users users, service ${cores.getOrElse(Double.NaN)}%.2f cores, machine " +
        f"${busy.getOrElse(Double.NaN) * 100}%.0f %% busy")
      (f, users, from, to, cores.getOrElse(Double.NaN), busy.getOrElse(Double.NaN))
    }
    val ended = groups.map(_.stop()).forall(identity)
    probing.set(false)
    prober.join(10000)
    val entries = log.all
    windows.map { (f, n, from, to, cores, busy) =>
      val in = entries.filter(e => e.endSecond >= from && e.endSecond < to)
      val seconds = (to - from).max(0.001)
      def latencies(es: Seq[RequestLog.Entry]) = Option(es.map(_.latencyMs)).filter(_.nonEmpty).map(Latencies.ofMillis)
      val ok = in.filter(_.outcome == Ok)
      val shed = in.filter(_.outcome == Shed)
      val (okLatency, shedLatency) = (latencies(ok), latencies(shed))
      val ps = probes.asScala.toSeq.filter((_, end, _, _) => end >= from && end < to)
      def maxOf(path: String) = ps.filter(_._1 == path).map(_._3).maxOption.getOrElse(Double.NaN)
      OverloadStep(f, n, ok.size / seconds, shed.size / seconds, okLatency.fold(Double.NaN)(_.p50Ms),
        okLatency.fold(Double.NaN)(_.p99Ms), shedLatency.fold(Double.NaN)(_.p50Ms), shed.count(_.retryAfter.isEmpty),
        in.map(_.outcome).filter(o => o.answered && o != Ok && o != Shed).groupMapReduce(_.label)(_ => 1)(_ + _),
        in.count(!_.answered) + (if ended then 0 else 1), maxOf("/hello"), maxOf("/health"), ps.count(!_._4), cores,
        busy)
    }

  /** The ramp's assertions: shedding above the limit only, at once, with Retry-After; probes always answered. */
  def checks(steps: Seq[OverloadStep], stubLatencyMs: Double): Seq[Check] =
    val below = steps.filter(_.factor < 1.0)
    val above = steps.filter(_.factor >= 1.5)
    Seq(
      Check("no shedding below the limit", below.forall(_.shedPerSecond == 0),
        below.map(s => f"${s.factor}x: ${s.shedPerSecond}%.0f 503/s").mkString(", ")),
      Check("503 above the limit", above.forall(_.shedPerSecond > 0),
        above.map(s => f"${s.factor}x: ${s.shedPerSecond}%.0f 503/s").mkString(", ")),
      Check("every 503 carries Retry-After", steps.forall(_.shedWithoutRetryAfter == 0),
        s"${steps.map(_.shedWithoutRetryAfter).sum} without"),
      Check("503 at once (p50 below a tenth of the third party's latency)",
        above.forall(s => s.shedP50Ms < stubLatencyMs / 10),
        above.map(s => f"${s.factor}x: ${s.shedP50Ms}%.1f ms").mkString(", ")),
      Check("admitted requests near the third party's latency (p50 below 2x)",
        steps.forall(s => s.okP50Ms < 2 * stubLatencyMs),
        steps.map(s => f"${s.factor}x: ${s.okP50Ms}%.0f ms").mkString(", ") + f" (third party ${stubLatencyMs}%.0f ms)"),
      Check("only 200 and 503, every request answered",
        steps.forall(s => s.otherStatuses.isEmpty && s.unanswered == 0),
        steps.map(s => s"${s.factor}x: other ${s.otherStatuses}, unanswered ${s.unanswered}").mkString("; ")),
      Check("/hello and /health answered throughout", steps.forall(_.probesFailed == 0),
        steps.map(s => f"${s.factor}x: /hello max ${s.helloMaxMs}%.0f ms, /health max ${s.healthMaxMs}%.0f ms")
          .mkString(", ")))
