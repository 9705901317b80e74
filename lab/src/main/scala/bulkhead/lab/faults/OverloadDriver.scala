package bulkhead.lab.faults

import bulkhead.lab.load.{ClosedLoopUsers, LoadDriver, RunningGroup, UserGroup}
import bulkhead.lab.model.{Latencies, LoadFigures}
import bulkhead.lab.record.{Overload, OverloadStep, RequestLog, RequestOutcome}

import java.net.URI
import java.net.http.{HttpClient, HttpRequest, HttpResponse}
import java.nio.file.Path
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.atomic.AtomicBoolean
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*

/**
 * The overload ramp as a load: users on the URL's collection (`/customers` -> `/customers/{id}`, ids 1..`customers`)
 * from 0.5x to 3x of `max-in-flight`, a step each `step`, while /hello and /health are probed every 100 ms. Above the
 * limit the service must answer 503 with Retry-After at once (not queue), keep admitted requests near the third
 * party's latency, and keep /hello and /health answering. Users honour Retry-After as polite clients do. Its figures
 * are the whole ramp's; [[overload]] gives each step's.
 */
final class OverloadDriver(maxInFlight: Int, customers: Int, step: FiniteDuration, stubLatencyMs: Double,
    progress: String => Unit) extends LoadDriver:
  import OverloadDriver.*
  @volatile private var steps: Option[Seq[OverloadStep]] = None

  def concurrency: Int = usersAt(Factors.last)
  def measuredSeconds: Double = Factors.size * step.toMillis / 1000.0
  def describe(url: String): String =
    s"closed-loop users on $url/{id} at ${Factors.mkString("x, ")}x of max-in-flight $maxInFlight, " +
      s"${step.toMillis / 1000.0} s a step (its first second not measured), waiting Retry-After after a 503; /hello " +
      "and /health probed every 100 ms"

  private def usersAt(factor: Double): Int = (maxInFlight * factor).round.toInt

  def run(url: String, dir: Path): Either[String, LoadFigures] =
    LoadDriver.requireLoopback(url)
    val uri = URI.create(url)
    val log = RequestLog()
    def now = (System.nanoTime() - log.t0Nanos) / 1e9
    val probes = ConcurrentLinkedQueue[Probe]()
    val probing = AtomicBoolean(true)
    val prober = Thread(() => probe(uri, log, probes, probing), "lab-overload-probe")
    prober.setDaemon(true)
    prober.start()
    var groups = Vector.empty[RunningGroup]
    var users = 0
    try
      val windows = Factors.map { f =>
        val target = usersAt(f)
        groups :+= ClosedLoopUsers.start(UserGroup(s"x$f", target - users, uri.getPort, FaultRan.ids(url, customers)),
          log)
        users = target
        Thread.sleep(1000) // the step's transition, not measured
        val from = now
        progress(s"  ${f}x: $users users")
        Thread.sleep((step - 1.second).toMillis)
        (f, users, from, now)
      }
      val ended = groups.map(_.stop()).forall(identity)
      val end = now
      probing.set(false)
      prober.join(10000)
      val entries = log.all
      steps = Some(windows.map((f, n, from, to) => OverloadDriver.step(f, n, from, to, entries,
        probes.asScala.toSeq.filter(p => p.end >= from && p.end < to), ended)))
      Right(ClosedLoopUsers.figures(entries, concurrency, 0.0, end, describe(url)))
    finally
      groups.foreach(_.abandon())
      probing.set(false)

  /** The ramp's steps, once it ran. */
  def overload: Overload =
    Overload(maxInFlight, stubLatencyMs, steps.getOrElse(throw IllegalStateException("the ramp did not run")))

object OverloadDriver:
  val Factors: Seq[Double] = Seq(0.5, 1.0, 1.5, 2.0, 3.0)
  private val Ok = RequestOutcome.Status(200)
  private val Shed = RequestOutcome.Status(503)

  /** One probe of /hello or /health: when it ended (seconds of the run), how long it took, and whether it got 200. */
  private final case class Probe(path: String, end: Double, ms: Double, ok: Boolean)

  private def probe(uri: URI, log: RequestLog, probes: ConcurrentLinkedQueue[Probe], probing: AtomicBoolean): Unit =
    val client = HttpClient.newBuilder().connectTimeout(java.time.Duration.ofSeconds(5)).build()
    while probing.get do
      for p <- Seq("/hello", "/health") do
        val start = System.nanoTime()
        val ok =
          try client.send(HttpRequest.newBuilder(uri.resolve(p)).timeout(java.time.Duration.ofSeconds(5)).build(),
            HttpResponse.BodyHandlers.discarding()).statusCode() == 200
          catch case _: Exception => false
        val end = System.nanoTime()
        probes.add(Probe(p, (end - log.t0Nanos) / 1e9, (end - start) / 1e6, ok))
      Thread.sleep(100)

  /** A step's window [from, to): its users' answers that ended in it, and its probes. */
  private def step(factor: Double, users: Int, from: Double, to: Double, entries: Seq[RequestLog.Entry],
      probes: Seq[Probe], ended: Boolean): OverloadStep =
    val in = entries.filter(e => e.endSecond >= from && e.endSecond < to)
    val seconds = (to - from).max(0.001)
    def latencies(es: Seq[RequestLog.Entry]) = Option(es.map(_.latencyMs)).filter(_.nonEmpty).map(Latencies.ofMillis)
    val ok = in.filter(_.outcome == Ok)
    val shed = in.filter(_.outcome == Shed)
    val (okLatency, shedLatency) = (latencies(ok), latencies(shed))
    def maxOf(path: String) = probes.filter(_.path == path).map(_.ms).maxOption
    OverloadStep(factor, users, from, to, ok.size / seconds, shed.size / seconds, okLatency.map(_.p50Ms),
      okLatency.map(_.p99Ms), shedLatency.map(_.p50Ms), shed.count(_.retryAfter.isEmpty),
      in.map(_.outcome).filter(o => o.answered && o != Ok && o != Shed).groupMapReduce(_.label)(_ => 1)(_ + _),
      in.count(!_.answered) + (if ended then 0 else 1), maxOf("/hello"), maxOf("/health"), probes.count(!_.ok))
