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
 */
final class JmxSampler(connection: JmxConnection) extends ProcessSampler:
  @volatile private var dumpError: Option[String] = None
  def lastDumpError: Option[String] = dumpError
  /** Event-loop frames seen so far in this JVM's dumps ([[EventLoops]]). */
  @volatile private var loops: Set[String] = Set.empty

  /** The JVM's cores, as it sees them (a container's limit). */
  lazy val cores: Option[Int] = connection.call("cores")(connection.os.getAvailableProcessors).toOption

  private var lastReading = Option.empty[Long]
  private var busyTicks = 0L
  private var totalTicks = 0L

  def sample(second: Double): Sample =
    val read = connection.dump() match
      case Right(dump) =>
        dumpError = None
        loops = loops ++ EventLoops.frames(dump.threads)
        DumpReading(PoolSample.of(dump, loops), WaitGraph.of(dump))
      case Left(e) =>
        dumpError = Some(e)
        DumpReading(Nil, Nil)
    process(second).copy(pools = read.pools, resources = read.resources)

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
