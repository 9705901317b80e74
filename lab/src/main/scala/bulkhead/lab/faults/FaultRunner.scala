package bulkhead.lab.faults

import bulkhead.lab.load.{ClosedLoopUsers, HeldConnections, Holding, RequestLog, RunningGroup, UserGroup}
import bulkhead.lab.model.MetricsReading
import bulkhead.lab.process.{RedisCommand, SeedRedis, Served, Stack}
import bulkhead.stub.Latency

import scala.collection.concurrent.TrieMap
import scala.concurrent.duration.*

/**
 * The phases of one fault run: load before the fault, the fault held, load after it cleared. A fault whose calls fail
 * only at the SOAP client's timeout is held `holdPastTimeout` instead, past that timeout.
 */
final case class Phases(baseline: FiniteDuration, hold: FiniteDuration, holdPastTimeout: FiniteDuration,
    recovery: FiniteDuration):
  def holdOf(fault: FaultCase): FiniteDuration = if fault.pastTimeout then holdPastTimeout else hold
  def total(fault: FaultCase): FiniteDuration = baseline + holdOf(fault) + recovery

/**
 * Runs fault cases against a running stack: steady closed-loop users on `/customers/{id}` throughout, the fault
 * injected after the baseline, held, cleared; every request and the service's gauges recorded.
 */
final class FaultRunner(stack: Stack, var redis: Served, stub: Served, service: Served, val steadyUsers: Int,
    val maxConnections: Int, customers: Int, baseStubLatency: Latency.Fixed, progress: String => Unit):
  private val gauges = ServiceGauges(service.child.pid, service.url("/metrics"))
  private def path(n: Int) = s"/customers/${n % customers + 1}"

  /** JIT, connections and pools warmed before the first recorded run (not recorded); see [[FaultRunner.warmUp]]. */
  def warmUp(d: FiniteDuration): Unit =
    FaultRunner.warmUp(service, steadyUsers, path, d)
    gauges.resources()

  /** The service's threads and heap now (after a full GC). */
  def resources(): Resources = gauges.resources()

  def run(fault: FaultCase, phases: Phases): FaultRecord =
    val before = gauges.resources()
    val hold = phases.holdOf(fault)
    val log = RequestLog()
    val target = StackTarget(log)
    val sampling = gauges.sampleEverySecond(log.t0Nanos)
    def now = (System.nanoTime() - log.t0Nanos) / 1e9
    val steady = ClosedLoopUsers.start(UserGroup("steady", steadyUsers, service.port, path), log)
    // Whatever happens, no user of this run outlives it (a failed injection must not leave load on the next run).
    try
      Thread.sleep(phases.baseline.toMillis)
      val injectAt = now
      fault.inject(target, hold)
      progress(f"  injected at $injectAt%.1f s: ${fault.description}")
      Thread.sleep(hold.toMillis)
      val clearAt = now
      fault.clear(target)
      progress(f"  cleared at $clearAt%.1f s")
      Thread.sleep(phases.recovery.toMillis)
      val ended = steady.stop() & target.stopAll()
      val endAt = now
      val rows = sampling.stop()
      target.releaseAll()
      Thread.sleep(500)
      val after = gauges.resources()
      FaultRecord.of(fault.name, injectAt, clearAt, endAt, log.all, steadyUsers, rows, before, after, ended)
    finally
      steady.abandon()
      target.stopAll()
      target.releaseAll()
      sampling.stop()

  /** The controls of this run: the stub, Redis and the extra load on the stack the runner was given. */
  private final class StackTarget(log: RequestLog) extends FaultTarget:
    private val extra = TrieMap[String, RunningGroup]()
    private val held = TrieMap[String, HeldConnections]()
    def stubLatency(value: Latency): Unit =
      Stack.post(stub.url(s"/admin/latency?value=${value.describe}")).left.foreach(fail)
    def stubFaults(value: String): Unit = Stack.post(stub.url(s"/admin/faults?value=$value")).left.foreach(fail)
    def baseLatency: Latency.Fixed = baseStubLatency
    def killRedis(): Unit = redis.child.kill()
    def restartRedis(): Unit =
      redis = stack.redis(redis.port)
      SeedRedis.load(s"redis://127.0.0.1:${redis.port}", customers)
    def pauseRedis(hold: FiniteDuration): Unit =
      RedisCommand.send(redis.port, Seq("CLIENT", "PAUSE", hold.toMillis.toString, "ALL")).left.foreach(fail)
    /** Redis 7.0 pauses a new client's CLIENT UNPAUSE too: the pause lasts exactly the hold; wait for its end. */
    def unpauseRedis(): Unit =
      val deadline = System.nanoTime() + 10.seconds.toNanos
      while RedisCommand.send(redis.port, Seq("PING")).isLeft do
        if System.nanoTime() > deadline then fail("Redis still paused 10 s after the hold")
    def extraUsers(name: String, users: Int, keepAlive: Boolean, oneShot: Boolean): Unit =
      extra.put(name, ClosedLoopUsers.start(UserGroup(name, users, service.port, path, keepAlive = keepAlive,
        oneShot = oneShot), log))
    def newcomers(name: String, users: Int): Unit =
      extra.put(name, ClosedLoopUsers.start(UserGroup(name, users, service.port, path, keepAlive = false,
        readTimeout = 5.seconds), log))
    def stopExtraUsers(name: String): Unit = extra.remove(name).foreach(_.stop())
    def holdConnections(name: String, count: Int, holding: Holding): Unit =
      serviceFileLimit.filter(_ < count + steadyUsers + 256).foreach { limit =>
        fail(s"the service may open only $limit files (ulimit -n), fewer than the $count connections to hold")
      }
      val h = HeldConnections.open(name, count, service.port, holding, log)
      held.put(name, h)
      progress(s"  holding ${h.held} connections ($count opened)")
    /** Closing thousands takes seconds (paced): it goes on beside the recovery; the run waits for it at its end. */
    def releaseConnections(name: String): Unit = held.remove(name).foreach(h => closing :+= h.closeInBackground())
    private var closing = Vector.empty[Thread]
    def releaseAll(): Unit =
      held.keys.toSeq.foreach(releaseConnections)
      closing.foreach(_.join(60_000))
      closing = Vector.empty
    def maxConnections: Int = FaultRunner.this.maxConnections
    def steadyUsers: Int = FaultRunner.this.steadyUsers
    def stopAll(): Boolean = extra.keys.toSeq.map(k => extra.remove(k).forall(_.stop())).forall(identity)
    private def serviceFileLimit: Option[Long] =
      scala.util.Try(java.nio.file.Files.readAllLines(java.nio.file.Path.of(s"/proc/${service.child.pid}/limits"))
        .toArray.map(_.toString).find(_.startsWith("Max open files"))
        .flatMap(_.drop("Max open files".length).trim.split("\\s+").headOption.flatMap(_.toLongOption)))
        .toOption.flatten
    private def fail(e: String): Nothing = throw IllegalStateException(s"fault control failed: $e")

object FaultRunner:
  /**
   * A cold service given 200 concurrent requests at once took seconds per request (JIT, a connection per call to the
   * third party) and timed calls out, opening the circuit breaker: so a tenth of the users first, then all, then a
   * wait until the breaker is closed.
   */
  def warmUp(service: Served, users: Int, path: Int => String, d: FiniteDuration): Unit =
    val few = ClosedLoopUsers.start(UserGroup("warm-up-few", (users / 10).max(1), service.port, path), RequestLog())
    Thread.sleep(d.toMillis / 2)
    val all = ClosedLoopUsers.start(UserGroup("warm-up", users, service.port, path), RequestLog())
    Thread.sleep(d.toMillis / 2)
    few.stop()
    all.stop()
    val deadline = System.nanoTime() + 30.seconds.toNanos
    while Stack.get(service.url("/metrics")).toOption.flatMap(t => MetricsReading.parse(t).circuitState)
        .exists(_ > 0) && System.nanoTime() < deadline do Thread.sleep(200)
