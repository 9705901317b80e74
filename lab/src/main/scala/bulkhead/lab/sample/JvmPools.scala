package bulkhead.lab.sample

/**
 * The pools of one running JVM at each sample, from the thread dump that shows the most of it without risking it: the
 * JSON dump where the JVM writes one (JDK 21+), the only dump that lists virtual threads, unless its JDK is one where
 * that dump can crash it ([[DumpHazards]]: then `Thread.print`, and virtual threads from JFR events, see
 * [[ServiceSampler]]; for a defect that needs virtual threads, from the first sample at which the JVM's scheduler has
 * started a carrier, asked before each JSON dump), else `Thread.print`. `allowRiskyDumps` takes the JSON dump even there. The JVM's version is read
 * once, at the first sample that can read it. A JVM that fails a JSON dump but takes a classic one at the same instant
 * (it has the command but could not write the file where the lab reads it) gets classic dumps from then on: each JSON
 * attempt costs it an attach. Each source gives a jcmd command's answer; [[JvmPools.of]] asks a pid.
 */
final class JvmPools(version: () => Either[String, String], json: () => Either[String, String],
    classic: () => Either[String, String], scheduler: () => Either[String, String], allowRiskyDumps: Boolean = false,
    hazards: DumpHazards = DumpHazards.Known, classicInsteadOfJson: Option[() => Either[String, String]] = None):
  @volatile private var jdk: Option[JdkVersion] = None
  @volatile private var jsonRefused = false
  @volatile private var schedulerIdentity: Option[String] = None
  /** A virtual thread has run in this JVM: its JSON dump is exposed to the defects that need them. */
  @volatile private var virtualSeen = false
  /** Virtual threads run now (not only one at its start): worth a JFR recording of their waits. */
  @volatile private var virtualInUse = false
  @volatile private var steals = Option.empty[Long]

  /** The defects of this JVM's JSON dump, once its version is known. */
  def jsonHazards: Seq[DumpDefect] = jdk.fold(Nil)(hazards.of(DumpKind.Json, _))

  /**
   * True while samples come from JSON dumps, with virtual threads: on a JDK whose JSON dump has a known defect, only
   * when allowed, or while the JVM has never started a virtual thread and every defect needs one.
   */
  def readsJson: Boolean =
    jdk.exists(_.feature >= JvmPools.JsonFrom) && !jsonRefused &&
      (jsonHazards.isEmpty || allowRiskyDumps || !virtualSeen && jsonHazards.forall(_.withVirtualThreads))

  /**
   * Whether the JVM runs virtual threads now: a dump showed one (or a carrier carrying one), or its scheduler is busy
   * or has run tasks since it was last asked. A JVM that ran one at its start and none since does not.
   */
  def runsVirtualThreads: Boolean = virtualInUse

  /** Where the samples come from and why. */
  def source: SamplingSource =
    val dormant = readsJson && !allowRiskyDumps && jsonHazards.nonEmpty
    if dormant then SamplingSource.beforeVirtualThreads(jdk.get, jsonHazards)
    else SamplingSource.byPid(jdk, jsonHazards, virtualInUse, allowRiskyDumps) match
      case s if jsonRefused && s.platform == SamplingSource.JsonDump =>
        s.copy(platform = SamplingSource.ClassicDump, virtual = None,
          reason = "the JVM refused the JSON dump (it could not write the file where the lab reads it)")
      case s => s

  /** Event-loop frames seen so far in this JVM's dumps ([[EventLoops]]): a loop seen idle once is known after. */
  @volatile private var loops: Set[String] = Set.empty

  def sample(): Either[String, Seq[PoolSample]] = read().map(_.pools)

  /** The pools and the resources of one dump. */
  def read(): Either[String, DumpReading] =
    if jdk.isEmpty then jdk = version().toOption.flatMap(JdkVersion.ofVmVersion)
    // The scheduler, asked before each dump until virtual threads run: has one started (the JSON dump is then
    // exposed), and do they run now (worth recording)?
    if !virtualInUse && jdk.exists(_.feature >= JvmPools.SchedulerFrom) then
      scheduler().toOption.foreach { out =>
        if schedulerIdentity.isEmpty then schedulerIdentity = JsonThreadDump.schedulerIdentity(out)
        SamplingSource.schedulerState(out).foreach { s =>
          if s.carriers > 0 || s.steals > 0 then virtualSeen = true
          if s.busy > 0 || steals.exists(_ < s.steals) then virtualInUse = true
          steals = Some(s.steals)
        }
      }
    if !readsJson then fromClassic
    else
      // The scheduler names the carriers' pool even when none carries: asked until a JVM that has the command answers.
      if schedulerIdentity.isEmpty && jdk.exists(_.feature >= JvmPools.SchedulerFrom) then
        schedulerIdentity = scheduler().toOption.flatMap(JsonThreadDump.schedulerIdentity)
      json().flatMap(JsonThreadDump.parse(_, schedulerIdentity)).map(reading) match
        case Right(pools) => Right(pools)
        case Left(jsonError) =>
          fromClassic match
            case Right(pools) =>
              jsonRefused = true
              Right(pools)
            case Left(classicError) => Left(s"$jsonError; $classicError")

  /**
   * `Thread.print -l`; in place of a JSON dump it refuses, `classicInsteadOfJson` (`Thread.print`: the JSON dump
   * walks no heap for lock owners, and its replacement need not either, at a safepoint's cost).
   */
  private def fromClassic: Either[String, DumpReading] =
    val dump = if replacesJson then classicInsteadOfJson.getOrElse(classic) else classic
    dump().map(t => reading(ThreadDump.parse(t)))

  /** The classic dump stands for a JSON dump refused for its defects (not for an old JDK, nor a failed JSON dump). */
  private def replacesJson: Boolean =
    jdk.exists(_.feature >= JvmPools.JsonFrom) && !jsonRefused && jsonHazards.nonEmpty && !readsJson

  private def reading(dump: ThreadDump): DumpReading =
    loops = loops ++ EventLoops.frames(dump.threads)
    // Before JDK 24 no scheduler answers: the machinery's threads stand for it (such JDKs take JSON dumps anyway).
    if dump.threads.exists(_.virtual) || SamplingSource.showsVirtualThreads(dump) ||
      jdk.forall(_.feature < JvmPools.SchedulerFrom) && SamplingSource.showsVirtualThreadMachinery(dump) then
      virtualSeen = true
      virtualInUse = true
    DumpReading(PoolSample.of(dump, loops), WaitGraph.of(dump))

/** One dump read: its pools and the resources its threads wait on. */
final case class DumpReading(pools: Seq[PoolSample], resources: Seq[ResourceSample])

object JvmPools:
  /** `Thread.dump_to_file -format=json` came with JDK 21. */
  val JsonFrom = 21
  /** `Thread.vthread_scheduler` came with JDK 24. */
  val SchedulerFrom = 24

  def of(pid: Long, allowRiskyDumps: Boolean = false): JvmPools = JvmPools(() => ThreadSampler.version(pid),
    () => ThreadSampler.dumpJson(pid), () => ThreadSampler.dump(pid), () => ThreadSampler.scheduler(pid),
    allowRiskyDumps, classicInsteadOfJson = Some(() => ThreadSampler.dump(pid, locks = false)))
