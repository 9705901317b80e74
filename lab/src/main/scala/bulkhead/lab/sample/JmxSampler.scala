package bulkhead.lab.sample

/**
 * The sampler of a JVM reached over JMX ([[JmxConnection]]): its pools and the resources its threads wait on from
 * `ThreadMXBean` dumps, read as a `Thread.print` dump is ([[PoolSample.of]], [[WaitGraph.of]]); its CPU seconds
 * from `OperatingSystemMXBean.getProcessCpuTime` in place of /proc; its live platform threads.
 *
 * The machine is the one the JVM sees (in a container, its share of the host): its busy share is the JVM's
 * `getCpuLoad` over each interval between two readings, integrated into busy and total ticks (milliseconds x cores)
 * as /proc/stat counts them. `getCpuLoad` is the load since the JVM's previous call of it, from anyone: an
 * approximation when something else in the JVM calls it (a metrics library), exact otherwise.
 *
 * `dumpAllThreads` stops the JVM at a safepoint and lists platform threads only: once a dump shows that the JVM runs
 * virtual threads, JFR events of their waits are recorded and read over the same connection ([[JmxRecording]]), and
 * [[finish]] adds them to each sample. A sample's pause is read from the JVM's log of VM operations (its safepoints
 * since the dump call began, [[VmOperations]]), else it is the dump call's whole time, transfer included. The JVM is taken for dead when a call fails after it answered before: the connection is lost.
 */
final class JmxSampler(connection: JmxConnection,
    events: JmxConnection => VirtualThreadEvents = c => JmxRecording(c.server)) extends ProcessSampler:
  @volatile private var dumpError: Option[String] = None
  def lastDumpError: Option[String] = dumpError
  /** Event-loop frames seen so far in this JVM's dumps ([[EventLoops]]). */
  @volatile private var loops: Set[String] = Set.empty

  /** The JVM's cores, as it sees them (a container's limit). */
  lazy val cores: Option[Int] = connection.call("cores")(connection.os.getAvailableProcessors).toOption

  private var lastReading = Option.empty[Long]
  private var busyTicks = 0L
  private var totalTicks = 0L

  private lazy val jdk = JdkVersion.parse(connection.jdk)
  @volatile private var virtualSeen = false
  private val virtual = VirtualSource(() => events(connection))
  private val instants = scala.collection.mutable.Map.empty[Double, Long]

  def sample(second: Double): Sample =
    val at = VirtualSource.nowNanos
    val began = System.nanoTime()
    val uptime = connection.uptimeMs.toOption
    val read = connection.dump() match
      case Right(dump) =>
        dumpError = None
        loops = loops ++ EventLoops.frames(dump.threads)
        // A carrier carrying, the JDK 21-23 unparker, or (JDK 24+) a scheduler that has started carriers.
        if !virtualSeen then virtualSeen = SamplingSource.showsVirtualThreads(dump) ||
          dump.threads.exists(_.name == "VirtualThread-unparker") || connection.virtualThreadCarriers.exists(_ > 0)
        DumpReading(PoolSample.of(dump, loops), WaitGraph.of(dump))
      case Left(e) =>
        dumpError = Some(e)
        DumpReading(Nil, Nil)
    // The safepoints the JVM's own log of VM operations shows since the dump call began; else the call's whole time.
    val callMs = (System.nanoTime() - began) / 1e6
    val logged = for
      from <- uptime
      log <- connection.vmOperations.toOption
      (ms, count) <- VmOperations.safepointsSince(log, from / 1000.0 - 0.001)
    yield SamplePause(ms, count, SamplePause.ByVmOperations)
    val pause = logged.getOrElse(SamplePause(callMs, 0, SamplePause.ByCallTime))
    if virtualSeen && jdk.exists(_.feature >= JvmPools.JsonFrom) then virtual.open(second)
    synchronized(instants(second) = at)
    virtual.sampled(at)
    process(second).copy(pools = read.pools, resources = read.resources, pause = Some(pause))

  override def source: Option[SamplingSource] = Some(virtual.describe(SamplingSource.byJmx(jdk, virtualSeen)))

  /** Two failed calls half a second apart: one may fail on a JVM too busy to answer in time. */
  override def death(second: Double): Option[TargetDeath] =
    def uptime() = connection.call("uptime")(connection.runtime.getUptime)
    uptime() match
      case Right(_) => None
      case Left(_) =>
        Thread.sleep(500)
        uptime().left.toOption.map(e => TargetDeath(second, s"the JMX connection was lost ($e)"))

  override def finish(samples: Seq[Sample]): Seq[Sample] =
    virtual.close()
    val at = synchronized(instants.toMap)
    samples.map(s => at.get(s.second).fold(s)(virtual.complete(s, _)))

  def process(second: Double): Sample =
    val cpu = connection.call("process CPU")(connection.os.getProcessCpuTime).toOption.filter(_ >= 0).map(_ / 1e9)
    val threads = connection.call("thread count")(connection.threads.getThreadCount).toOption
    val machine = machineTicks()
    Sample(second, Nil, threads, None, cpu, machine.map(_._1), machine.map(_._2), None,
      labCpuSeconds = CpuUsage.ownSeconds)

  /** Busy and total ticks so far: the first reading starts the count (its load covers an interval unknown here). */
  private def machineTicks(): Option[(Long, Long)] = synchronized {
    val now = System.nanoTime()
    for
      load <- connection.call("CPU load")(connection.os.getCpuLoad).toOption.filter(_ >= 0)
      n <- cores
    yield
      lastReading.foreach { before =>
        val ticks = (now - before) / 1_000_000 * n
        totalTicks += ticks
        busyTicks += math.round(ticks * load.min(1.0))
      }
      lastReading = Some(now)
      (busyTicks, totalTicks)
  }
