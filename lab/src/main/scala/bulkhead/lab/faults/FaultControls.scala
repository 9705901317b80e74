package bulkhead.lab.faults

import bulkhead.lab.load.{ClosedLoopUsers, HeldConnections, Holding, HostileLoad, RunningGroup, UserGroup}
import bulkhead.lab.process.{Dependencies, RedisCommand, Served, Stack}
import bulkhead.lab.record.{HostileClients, LateRequests, RequestLog}
import bulkhead.lab.sample.Retained
import bulkhead.stub.Latency

import java.nio.file.{Files, Path}
import scala.collection.concurrent.TrieMap
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*
import scala.util.Try

/**
 * The controls of one fault run on a running service: the stub's admin endpoint and Redis (the run's
 * [[Dependencies]], which start Redis again in place), and extra load on the service, whose requests go to the run's
 * `log`. What a fault started is stopped by [[stopAll]] and [[releaseAll]], also when the run fails.
 */
final class FaultControls(deps: Dependencies, service: Served, log: RequestLog, path: Int => String,
    val baseLatency: Latency.Fixed, val maxConnections: Int, val steadyUsers: Int, progress: String => Unit,
    val maxHeadBytes: Int = 65536, val requestHeadTimeout: FiniteDuration = 10.seconds) extends FaultTarget:
  private val extra = TrieMap[String, RunningGroup]()
  private val held = TrieMap[String, HeldConnections]()
  /** The hostile clients' requests, on the run's clock, apart from the well-behaved users' `log`. */
  val hostileLog: RequestLog = RequestLog(log.t0Nanos)
  @volatile private var hostile = Vector.empty[HostileGroup]
  @volatile private var closing = Vector.empty[Thread]
  @volatile private var watcher = Option.empty[ServiceWatcher]
  private val stopped = TrieMap[Long, String]()

  private def stub: Served = deps.stub.getOrElse(fail("no stub was started"))
  private def redis: Served = deps.redis.getOrElse(fail("no redis-server was started"))

  def stubLatency(value: Latency): Unit =
    Stack.post(stub.url(s"/admin/latency?value=${value.describe}")).left.foreach(fail)
  def stubFaults(value: String): Unit = Stack.post(stub.url(s"/admin/faults?value=$value")).left.foreach(fail)
  def killRedis(): Unit = redis.child.kill()
  def restartRedis(): Unit = deps.restartRedis()
  def pauseRedis(hold: FiniteDuration): Unit =
    RedisCommand.send(redis.port, Seq("CLIENT", "PAUSE", hold.toMillis.toString, "ALL")).left.foreach(fail)
  /** Redis 7.0 pauses a new client's CLIENT UNPAUSE too: the pause lasts exactly the hold; wait for its end. */
  def unpauseRedis(): Unit =
    val deadline = System.nanoTime() + 10.seconds.toNanos
    while RedisCommand.send(redis.port, Seq("PING")).isLeft do
      if System.nanoTime() > deadline then fail("Redis still paused 10 s after the hold")
  def stopStub(): Unit = stop("stub", stub.child.pid)
  def stopRedis(): Unit = stop("redis", redis.child.pid)
  def continueStopped(): Unit = stopped.keys.toSeq.foreach { pid =>
    signal("CONT", pid)
    stopped.remove(pid)
  }
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

  def startHostile(name: String, description: String, designed: Set[Int], late: Option[LateDesign] = None)(
      start: (Int, RequestLog) => HostileLoad): HostileLoad =
    val load = start(service.port, hostileLog)
    hostile :+= HostileGroup(name, description, designed, load, late)
    progress(s"  hostile clients started: $name")
    load
  def stopHostile(name: String): Unit = hostile.filter(_.name == name).foreach(_.stop())
  def heldHeap(name: String): Unit =
    val heap = Retained.heapAfterGc(service.child.pid, service.url("/metrics"), gc =>
      watcher.fold(gc())(_.pausedByLab(s"a full GC to read the heap held by $name")(gc())))
    hostile.filter(_.name == name).foreach(_.heldHeapMb = heap)
    progress(s"  heap held with $name: ${heap.fold("no reading")(h => f"$h%.0f MB")} (after a full GC)")

  /** Watches the service from outside (/health, descriptors, its log) on the run's clock, until stopped. */
  def watch(): ServiceWatcher =
    val w = ServiceWatcher(service.port, service.child.pid, service.child.log, log.t0Nanos)
    watcher = Some(w)
    w

  /** The hostile clients of the run, each with what came of its requests (once they are stopped). */
  def hostileClients: Seq[HostileClients] =
    val byGroup = hostileLog.all.groupBy(_.group)
    def count(entries: Seq[RequestLog.Entry]) = entries.groupMapReduce(_.outcome)(_ => 1)(_ + _)
    hostile.map { g =>
      val entries = byGroup.getOrElse(g.name, Nil)
      val late = g.late.map(d => LateRequests(d.after.toMillis.toDouble, d.reason, d.designed,
        count(entries.filter(_.latencyMs >= d.after.toMillis))))
      HostileClients(g.name, g.description, g.load.connections, g.designed, count(entries), g.heldHeapMb, late)
    }

  /** Stops every extra group (each user finishes its request) and the hostile clients; true if every user ended. */
  def stopAll(): Boolean =
    hostile.foreach(_.stop())
    extra.keys.toSeq.map(k => extra.remove(k).forall(_.stop())).forall(identity)

  /** Continues every stopped process, releases every held connection and waits until they are closed. */
  def releaseAll(): Unit =
    continueStopped()
    held.keys.toSeq.foreach(releaseConnections)
    closing.foreach(_.join(60_000))
    closing = Vector.empty

  private def stop(name: String, pid: Long): Unit =
    stopped.put(pid, name)
    signal("STOP", pid)

  private def signal(name: String, pid: Long): Unit =
    val code = ProcessBuilder("kill", s"-$name", pid.toString).inheritIO().start().waitFor()
    if code != 0 then fail(s"kill -$name $pid exited $code")

  private def serviceFileLimit: Option[Long] =
    Try(Files.readAllLines(Path.of(s"/proc/${service.child.pid}/limits")).asScala
      .find(_.startsWith("Max open files"))
      .flatMap(_.drop("Max open files".length).trim.split("\\s+").headOption.flatMap(_.toLongOption))).toOption.flatten

  private def fail(e: String): Nothing = throw IllegalStateException(s"fault control failed: $e")

/** Hostile clients started by a fault, stopped once (at clear or at the run's end). */
private final class HostileGroup(val name: String, val description: String, val designed: Set[Int],
    val load: HostileLoad, val late: Option[LateDesign]):
  @volatile var heldHeapMb: Option[Double] = None
  private val stopped = java.util.concurrent.atomic.AtomicBoolean(false)
  def stop(): Unit = if stopped.compareAndSet(false, true) then load.stop()
