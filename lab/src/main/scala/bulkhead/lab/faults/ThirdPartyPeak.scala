package bulkhead.lab.faults

import bulkhead.lab.model.MetricsReading
import bulkhead.lab.process.Stack

import java.util.concurrent.atomic.{AtomicBoolean, AtomicInteger}
import scala.concurrent.duration.*

/**
 * The most calls the third party (the stub) had at once, from its `stub_in_flight` gauge polled every `every` on its
 * /metrics: a sampler once a second would miss the peaks of calls that last a second. The calls a hang fault still
 * holds (`stub_calls_hung`: taken before, their callers long gone, never answered) are not the callers' and are left
 * out. Only polls from `countFrom` on count: a warm-up's calls, which callers just started abandon while the stub
 * still holds them, are not the counted window's. `peak` is None when no poll read the gauge.
 */
final class ThirdPartyPeak private (metricsUrl: String, every: FiniteDuration, countFrom: FiniteDuration):
  private val max = AtomicInteger(-1)
  private val started = System.nanoTime()
  // When the peak was first read, in seconds since the polling began (the poller's thread alone writes it).
  @volatile private var at = Option.empty[Double]
  private val polling = AtomicBoolean(true)
  private val thread = Thread(() =>
    while polling.get do
      val counted = System.nanoTime() - started >= countFrom.toNanos
      Stack.get(metricsUrl, 2.seconds).toOption.filter(_ => counted).flatMap(ThirdPartyPeak.inFlight).foreach(n =>
        if n > max.get then
          max.set(n)
          at = Some((System.nanoTime() - started) / 1e9))
      Thread.sleep(every.toMillis)
  , "lab-third-party-peak")
  thread.setDaemon(true)
  thread.start()

  /** Stops polling; the peak seen. */
  def stop(): Option[Int] =
    polling.set(false)
    thread.join(5000)
    Option(max.get).filter(_ >= 0)

  /** When the peak was first read, in seconds since the polling began; None if no poll read the gauge. */
  def peakSecond: Option[Double] = at

object ThirdPartyPeak:
  val Gauge = "stub_in_flight"
  val Hung = "stub_calls_hung"

  def start(metricsUrl: String, every: FiniteDuration = 10.millis, countFrom: FiniteDuration = Duration.Zero)
      : ThirdPartyPeak = ThirdPartyPeak(metricsUrl, every, countFrom)

  /** The stub's calls in flight now that it is working on (less those a hang holds), from its /metrics text. */
  def inFlight(metrics: String): Option[Int] =
    val lines = MetricsReading.lines(metrics)
    val hung = lines.find(_.name == Hung).map(_.value.round.toInt).getOrElse(0)
    lines.find(_.name == Gauge).map(_.value.round.toInt - hung)
