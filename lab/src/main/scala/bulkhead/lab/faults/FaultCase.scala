package bulkhead.lab.faults

import bulkhead.lab.load.{Holding, HostileLoad, LargeHeads, RequestFlood, RetryStorm, SlowBodies, SlowReaders}
import bulkhead.lab.record.{BreakerExpectation, FaultExpectation, RequestLog}
import bulkhead.stub.Latency

import scala.concurrent.duration.*

/** The controls a fault acts through: the stub's admin endpoint, the Redis process, extra load. */
trait FaultTarget:
  def stubLatency(value: Latency): Unit
  def stubFaults(value: String): Unit
  /** The stub's latency outside a fault: fixed, so that a fault can multiply it. */
  def baseLatency: Latency.Fixed
  def killRedis(): Unit
  def restartRedis(): Unit
  def pauseRedis(hold: FiniteDuration): Unit
  def unpauseRedis(): Unit
  /** Stops the process (SIGSTOP): its sockets still accept (the kernel's backlog) and take bytes; nothing reads them. */
  def stopStub(): Unit
  def stopRedis(): Unit
  /** Continues every process a fault stopped (SIGCONT). */
  def continueStopped(): Unit
  /** Starts a group of extra users on the enrichment route; the fault stops it (each finishes its request) at clear. */
  def extraUsers(name: String, users: Int, keepAlive: Boolean, oneShot: Boolean): Unit
  /**
   * Users that each open a new connection per request and want an answer within 5 s (their read timeout): new
   * clients of a service whose connections are all taken.
   */
  def newcomers(name: String, users: Int): Unit
  def stopExtraUsers(name: String): Unit
  /** Holds `count` connections open (returns once they are); released at clear. */
  def holdConnections(name: String, count: Int, holding: Holding): Unit
  def releaseConnections(name: String): Unit
  /** The service's shipped max-connections and the steady users, to size the connection faults. */
  def maxConnections: Int
  def steadyUsers: Int
  /** The service's shipped max-head-bytes, to size the heads of hostile clients. */
  def maxHeadBytes: Int
  /** The service's shipped request-head-timeout: what it answers a head held longer is 408. */
  def requestHeadTimeout: FiniteDuration
  /**
   * Starts hostile clients (`start` gets the service's port and the log to record in), their requests recorded apart
   * from the well-behaved users' under `name`, with what they did and the statuses the design gives them; they run
   * until [[stopHostile]] or the run's end.
   */
  def startHostile(name: String, description: String, designed: Set[Int], late: Option[LateDesign] = None)(
      start: (Int, RequestLog) => HostileLoad): HostileLoad
  def stopHostile(name: String): Unit
  /** Reads the service's heap after a full GC now, as what the hostile clients `name` hold. */
  def heldHeap(name: String): Unit

/**
 * One row of the fault matrix: how to inject it, how to clear it, what correct looks like. `pastTimeout`: its calls
 * fail only at the SOAP client's timeout, so it is held longer than that (Phases.holdPastTimeout) for the breaker to
 * see its failures. `hung`: a dependency that hangs rather than fails, held `Phases.holdHung` (minutes in the long form);
 * its run also records the calls the dependencies got stale and what the service holds once the load stops. `frozen`:
 * the dependency's process itself is stopped, so it reads what its socket buffers took meanwhile only when it continues.
 */
final case class FaultCase(name: String, description: String, expect: FaultExpectation,
    inject: (FaultTarget, FiniteDuration) => Unit, clear: FaultTarget => Unit, pastTimeout: Boolean = false,
    hung: Boolean = false, frozen: Boolean = false)

object FaultCase:
  import BreakerExpectation.*
  private val ThirdPartyFailed = FaultExpectation(Set(502, 503), Opens)
  private val ThirdPartySlow = FaultExpectation(Set(504, 503), Opens)

  private def stubFault(name: String, kind: String, text: String, expect: FaultExpectation,
      pastTimeout: Boolean = false) =
    FaultCase(name, text, expect, (t, _) => t.stubFaults(s"$kind=1.0"), _.stubFaults(""), pastTimeout)

  /**
   * Every connection slot of the service taken (max-connections, and 100 more, which the service answers 503 and
   * closes) while new clients arrive: they must get an answer (503 with Retry-After, or served) within 5 s.
   */
  private def exhaustion(name: String, text: String, holding: Holding) =
    FaultCase(name, text, FaultExpectation(Set(503), StaysClosed),
      (t, _) =>
        t.holdConnections("held", t.maxConnections - t.steadyUsers + 100, holding)
        t.newcomers("newcomers", 20),
      t =>
        t.stopExtraUsers("newcomers")
        t.releaseConnections("held"))

  /** The fault matrix, in its order (the two that hold every connection slot are kept apart). */
  val all: Seq[FaultCase] = Seq(
    FaultCase("latency-x10", "the third party answers 10x slower (past the SOAP client's timeout)",
      FaultExpectation(Set(504, 503), Opens),
      (t, _) => t.stubLatency(Latency.Fixed(t.baseLatency.ms * 10)), t => t.stubLatency(t.baseLatency),
      pastTimeout = true),
    stubFault("no-answer", "no-answer", "the third party never answers (client timeout)", ThirdPartySlow,
      pastTimeout = true),
    FaultCase("server-error-50", "HTTP 500 with a SOAP Fault for half of the calls",
      FaultExpectation(Set(502), StaysClosed), (t, _) => t.stubFaults("server-error=0.5"), _.stubFaults("")),
    stubFault("reset", "reset", "the connection is reset in the middle of the answer", ThirdPartyFailed),
    stubFault("malformed-xml", "malformed-xml", "200 with XML that does not parse", ThirdPartyFailed),
    stubFault("xxe", "xxe", "200 with a DOCTYPE declaring an external entity", ThirdPartyFailed),
    stubFault("billion-laughs", "billion-laughs", "200 with nested entity declarations", ThirdPartyFailed),
    stubFault("oversized", "oversized", "200 with a 4 MB envelope (limit 64 KB)", ThirdPartyFailed),
    stubFault("trickle", "trickle", "200 whose body arrives one byte every 100 ms", ThirdPartySlow,
      pastTimeout = true),
    exhaustion("connection-exhaustion", "every connection slot held by idle keep-alive clients; new clients arrive",
      Holding.Idle("/hello")),
    FaultCase("redis-killed", "redis-server killed (SIGKILL), restarted on the same port at clear",
      FaultExpectation(Set.empty, StaysClosed, degrades = true), (t, _) => t.killRedis(), _.restartRedis()),
    FaultCase("redis-paused", "Redis paused (CLIENT PAUSE ALL for the hold)",
      FaultExpectation(Set.empty, StaysClosed, degrades = true), (t, hold) => t.pauseRedis(hold), _.unpauseRedis()),
    FaultCase("connection-burst", "a burst of 1,000 new connections, one request each",
      FaultExpectation(Set(503), StaysClosed),
      (t, _) => t.extraUsers("burst", 1000, keepAlive = false, oneShot = true),
      _.stopExtraUsers("burst")),
    exhaustion("slowloris", "every connection slot held by slow-header clients (a header byte a second); new " +
      "clients arrive", Holding.SlowHeader(1.second))) ++ hungDependencies ++ HostileCases.all

  /**
   * Dependencies that hang rather than fail, for the long hold: the third party taking calls and never answering them
   * (not even after the clearing), its process stopped (a socket that accepts and reads nothing), Redis stopped.
   */
  def hungDependencies: Seq[FaultCase] = Seq(
    FaultCase("stub-hung", "the third party takes every call and never answers it, also once cleared (each held until " +
      "the client gives up)", ThirdPartySlow, (t, _) => t.stubFaults("hang=1.0"), _.stubFaults(""), hung = true),
    FaultCase("stub-stopped", "the third party's process stopped (SIGSTOP): its sockets accept and nothing reads " +
      "them; SIGCONT at clear", ThirdPartySlow, (t, _) => t.stopStub(), _.continueStopped(), hung = true, frozen = true),
    FaultCase("redis-stopped", "redis-server stopped (SIGSTOP): its connections stay open and nothing answers; " +
      "SIGCONT at clear", FaultExpectation(Set.empty, StaysClosed, degrades = true), (t, _) => t.stopRedis(),
      _.continueStopped(), hung = true, frozen = true))
