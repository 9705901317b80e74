package bulkhead.lab.sample

import bulkhead.lab.model.MetricsReading
import bulkhead.lab.process.Stack

import scala.concurrent.duration.*

/**
 * The one sampler of a served process, for every lab command: a thread dump (any JVM, through the attach API; JSON
 * with its virtual threads where the JVM writes it, see [[JvmPools]]), /proc
 * (the process and its children, the machine) and, when the server has one, a scrape of /metrics. `threadDumps` is off
 * for a process that is not a JVM (nginx). `dependencies` (name -> pid: the stub, redis-server) have their CPU read
 * from /proc at every sample, to state what a request costs them too.
 */
final class ServiceSampler(pid: Long, metricsUrl: Option[String], threadDumps: Boolean = true,
    dependencies: Map[String, Long] = Map.empty) extends ProcessSampler:
  /** The last thread dump's error, if the last one failed (a starved or exiting JVM). */
  @volatile var lastDumpError: Option[String] = None
  private val dumps = JvmPools.of(pid)

  def sample(second: Double): Sample =
    // A starved service (blocking on its default dispatcher) may not answer: do not wait long for it.
    val metrics = metricsUrl.flatMap(u => Stack.get(u, 2.seconds).toOption.map(MetricsReading.parse))
    val read =
      if !threadDumps then DumpReading(Nil, Nil)
      else dumps.read() match
        case Right(r) =>
          lastDumpError = None
          r
        case Left(e) =>
          lastDumpError = Some(e)
          DumpReading(Nil, Nil)
    process(second).copy(pools = read.pools, metrics = metrics, resources = read.resources,
      outbound = OutboundConnections.of(pid))

  /**
   * The processes from /proc alone (no thread dump, no scrape: nothing that costs the service CPU): the readings
   * taken just before a load starts and just after it ends, between which CPU per request is counted.
   */
  def process(second: Double): Sample =
    val proc = ProcessThreads.read(pid)
    val machine = CpuUsage.machineBusy()
    Sample(second, Nil, proc.map(_.threads), proc.map(_.residentMb), CpuUsage.treeSeconds(pid),
      machine.map(_._1), machine.map(_._2), None,
      dependencies.flatMap((name, p) => CpuUsage.treeSeconds(p).map(name -> _)), CpuUsage.compilerSeconds(pid),
      safepoints = PerfCounters.read(pid).flatMap(PerfCounters.safepoints), labCpuSeconds = CpuUsage.ownSeconds)
