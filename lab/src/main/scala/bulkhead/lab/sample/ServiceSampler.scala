package bulkhead.lab.sample

import bulkhead.lab.model.MetricsReading
import bulkhead.lab.process.Stack

import scala.collection.mutable
import scala.concurrent.duration.*

/**
 * The one sampler of a served process, for every lab command: a thread dump (any JVM, through the attach API; see
 * [[JvmPools]] for which), /proc (the process and its children, the machine) and, when the server has one, a scrape of
 * /metrics. `threadDumps` is off for a process that is not a JVM (nginx). `dependencies` (name -> pid: the stub,
 * redis-server) have their CPU read from /proc at every sample, to state what a request costs them too.
 *
 * On a JDK whose JSON dump can crash it ([[DumpHazards]]) the dump is `Thread.print`, and once it shows that the JVM
 * runs virtual threads, a JFR recording of their waits is kept in the JVM and read back ([[AttachRecording]],
 * [[VirtualSource]]); [[finish]] stops it and adds, to each sample, the virtual threads in a recorded wait at its
 * instant. `allowRiskyDumps` takes
 * the JSON dump instead. Each sample records how long its dump stopped the JVM ([[SamplePause]]). `process`: the JVM
 * when the lab started it, whose exit code then tells how it ended ([[ProcessDeath]]).
 */
final class ServiceSampler(pid: Long, metricsUrl: Option[String], threadDumps: Boolean = true,
    dependencies: Map[String, Long] = Map.empty, allowRiskyDumps: Boolean = false, process: Option[Process] = None,
    events: Long => VirtualThreadEvents = AttachRecording(_)) extends ProcessSampler:
  /** The last thread dump's error, if the last one failed (a starved or exiting JVM). */
  @volatile var lastDumpError: Option[String] = None
  private val dumps = JvmPools.of(pid, allowRiskyDumps)
  private val life = ProcessDeath(pid, process)
  private val virtual = VirtualSource(() => events(pid))
  /** Each sample's wall-clock instant (epoch nanoseconds), by its second: where its virtual threads are read. */
  private val instants = mutable.Map.empty[Double, Long]

  def sample(second: Double): Sample =
    // A starved service (blocking on its default dispatcher) may not answer: do not wait long for it.
    val metrics = metricsUrl.flatMap(u => Stack.get(u, 2.seconds).toOption.map(MetricsReading.parse))
    val before = safepoints()
    val at = VirtualSource.nowNanos
    val read =
      if !threadDumps then DumpReading(Nil, Nil)
      else dumps.read() match
        case Right(r) =>
          lastDumpError = None
          r
        case Left(e) =>
          lastDumpError = Some(e)
          DumpReading(Nil, Nil)
    // The recording of virtual threads is started and read back here too: its safepoints count in this pause.
    if threadDumps && dumps.runsVirtualThreads && !dumps.readsJson then virtual.open(second)
    synchronized(instants(second) = at)
    virtual.sampled(at)
    val pause = for b <- before; a <- safepoints() if threadDumps yield SamplePause.between(b, a)
    process(second).copy(pools = read.pools, metrics = metrics, resources = read.resources,
      outbound = OutboundConnections.of(pid), pause = pause)

  override def source: Option[SamplingSource] =
    Option.when(threadDumps)(virtual.describe(dumps.source))

  override def death(second: Double): Option[TargetDeath] = life.check(second)

  override def finish(samples: Seq[Sample]): Seq[Sample] =
    virtual.close()
    val at = synchronized(instants.toMap)
    samples.map(s => at.get(s.second).fold(s)(virtual.complete(s, _)))

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
      safepoints = safepoints(), labCpuSeconds = CpuUsage.ownSeconds)

  private def safepoints(): Option[Safepoints] = PerfCounters.read(pid).flatMap(PerfCounters.safepoints)
