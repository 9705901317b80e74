package bulkhead.lab.load

import bulkhead.lab.model.LoadFigures
import bulkhead.lab.scenario.Load

import java.nio.file.Path
import scala.concurrent.duration.FiniteDuration

/**
 * Drives load and reports [[LoadFigures]]: wrk's closed loop, the JMeter ramp, the lab's own closed-loop users, or
 * vegeta's open loop. A scenario's load is a GET of one URL; a user's is their [[Requests]] (method, headers, body,
 * HTTPS, several routes), which wrk, vegeta and the lab's own client send as given. Raw outputs go into `dir` beside
 * the figures.
 */
trait LoadDriver:
  /** Clients (connections, threads or users) at full load. */
  def concurrency: Int
  /** The measured phase's length. */
  def measuredSeconds: Double
  /** Seconds from the start of the run to the start of the measured phase (a ramp's ramp-up). */
  def measuredFrom: Double = 0.0
  /** The whole run's length, for progress. */
  def totalSeconds: Double = measuredFrom + measuredSeconds
  /** An open loop (requests sent at a rate, whatever the answers do) rather than clients that wait for answers. */
  def openLoop: Boolean = false
  def describe(url: String): String
  def run(url: String, dir: Path): Either[String, LoadFigures]
  def describe(requests: Requests): String = describe(requests.first.url.toString)
  /** The user's requests; a driver that sends only a GET of one URL refuses any other. */
  def run(requests: Requests, dir: Path): Either[String, LoadFigures] =
    if requests.plainGet && !requests.https then run(requests.first.url.toString, dir)
    else Left(s"${getClass.getSimpleName} sends a plain GET of one http:// URL; not ${requests.describe}")

object LoadDriver:
  def of(load: Load): LoadDriver = load match
    case w: Load.Wrk => WrkDriver(w.threads.min(w.connections), w.connections, w.duration, w.timeout, w.closeEach)
    case r: Load.Ramp => RampLoadDriver(r)
    case o: Load.Open => VegetaDriver(o.rate.getOrElse(throw IllegalArgumentException(NoRate)), o.duration, o.timeout)

  /** How to get wrk, said when there is none. */
  val WrkHowToGet = "wrk is not on the PATH (apt-get install wrk, brew install wrk)"

  /**
   * A closed loop of `connections` clients for a user's requests: wrk where it is on the PATH and the requests go to
   * one host, else the lab's own users ([[UsersDriver]]), which need no tool and load several hosts (the replicas of
   * a fleet, each its own URL), said in one line; nothing is installed.
   */
  def closedLoop(requests: Requests, threads: Int, connections: Int, duration: FiniteDuration,
      timeout: FiniteDuration, say: String => Unit): LoadDriver =
    if !requests.oneOrigin then UsersDriver(connections, duration, timeout)
    else if OnPath.find("wrk").isDefined then WrkDriver(threads.min(connections), connections, duration, timeout)
    else
      say(s"$WrkHowToGet: the lab's own closed-loop users load instead")
      UsersDriver(connections, duration, timeout)

  /** An open scenario without `load.rate` runs under `lab capacity` only, which finds the rate. */
  val NoRate = "an open loop without load.rate runs under lab capacity only (which steps the rate up to a top it " +
    "finds from the closed loop); set load.rate to run it at one rate"

  /** Refuses anything but loopback: load and fault tests never leave the machine. */
  def requireLoopback(url: String): Unit =
    require(url.startsWith("http://127.") || url.startsWith("http://localhost"), s"load targets loopback only: $url")
