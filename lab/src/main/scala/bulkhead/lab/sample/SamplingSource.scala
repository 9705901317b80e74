package bulkhead.lab.sample

/**
 * Where a run's thread samples came from and why, as the run records it (`result.json`) and prints it: the dump of
 * platform threads (`Thread.print -l`, the JSON dump, or `ThreadMXBean.dumpAllThreads` over JMX), the source of
 * virtual threads when the JVM runs them (the JSON dump itself, or JFR events streamed from it, which stop nothing),
 * the JDK it decided on, and whether the choice risks the JVM (`--allow-risky-dumps` on a JDK with a known defect).
 * `virtualFrom`: the second of the run at which virtual threads were first seen, when they were.
 */
final case class SamplingSource(jdk: String, platform: String, virtual: Option[String], reason: String,
    risky: Boolean = false, virtualFrom: Option[Double] = None):
  /** `Thread.print -l (platform threads and carriers) + JFR events over attach (virtual threads): JDK 25.0.3 ...`. */
  def describe: String =
    val v = virtual.fold("")(s => s" + $s (virtual threads)")
    s"$platform$v: $reason"

object SamplingSource:
  val ClassicDump = "Thread.print -l"
  /** In place of a JSON dump refused for its defects: no heap walk for lock owners, which the JSON dump has not either. */
  val ClassicInsteadOfJson = "Thread.print"
  val JsonDump = "Thread.dump_to_file -format=json"
  val JmxDump = "ThreadMXBean.dumpAllThreads over JMX"
  val JfrAttach = "JFR events of a recording in the JVM (JFR.start, JFR.dump over attach)"
  val JfrJmx = "JFR events of a recording in the JVM (FlightRecorderMXBean over JMX)"

  /** The flag that takes a dump the hazard table marks as risky. */
  val AllowFlag = "--allow-risky-dumps"

  /**
   * The dumps of a JVM sampled by pid: `jdk` its version when it could be read, `hazards` the defects of its JSON
   * dump, `virtual` whether it runs virtual threads, `allowRisky` the user's `--allow-risky-dumps`.
   */
  def byPid(jdk: Option[JdkVersion], hazards: Seq[DumpDefect], virtual: Boolean, allowRisky: Boolean): SamplingSource =
    val named = jdk.fold("?")(_.toString)
    jdk match
      case None => SamplingSource(named, ClassicDump, None, "the JVM's version could not be read: no JSON dump")
      case Some(v) if v.feature < JvmPools.JsonFrom =>
        SamplingSource(named, ClassicDump, None, s"JDK $v has no JSON dump and no virtual threads")
      case Some(v) if hazards.isEmpty =>
        SamplingSource(named, JsonDump, Some("the JSON dump"), s"JDK $v: no known defect of the JSON dump " +
          "(the only dump that lists virtual threads)")
      case Some(v) if allowRisky =>
        SamplingSource(named, JsonDump, Some("the JSON dump"), s"$AllowFlag on JDK $v despite ${ids(hazards)}: " +
          "the JSON dump can crash this JVM while virtual threads mount and unmount", risky = true)
      case Some(v) =>
        SamplingSource(named, ClassicInsteadOfJson, Option.when(virtual)(JfrAttach), s"JDK $v has ${ids(hazards)}: " +
          "the JSON dump can crash it while virtual threads mount and unmount, so it is not taken (" + AllowFlag +
          " takes it); Thread.print stops the JVM at a safepoint, where no thread is between mount and unmount")

  /**
   * The JSON dump of a JVM whose JDK has only defects that need virtual threads (`hazards`), while it has started
   * none: asked before each dump, and from the first one on, `Thread.print` and JFR ([[byPid]]).
   */
  def beforeVirtualThreads(jdk: JdkVersion, hazards: Seq[DumpDefect]): SamplingSource =
    SamplingSource(jdk.toString, JsonDump, Some("the JSON dump"), s"JDK $jdk's JSON dump has ${ids(hazards)}, which " +
      "needs virtual threads mounting and unmounting: this JVM has started none (its scheduler has no carrier, asked " +
      "before each dump); from the first, Thread.print and JFR")

  /** The dumps of a JVM sampled over JMX: `dumpAllThreads` (a safepoint) and, with virtual threads, JFR over JMX. */
  def byJmx(jdk: Option[JdkVersion], virtual: Boolean): SamplingSource =
    SamplingSource(jdk.fold("?")(_.toString), JmxDump, Option.when(virtual)(JfrJmx),
      "over JMX: ThreadMXBean dumps at a safepoint, platform threads only" +
        (if virtual then "; virtual threads from JFR events, which stop nothing" else ""))

  private def ids(hazards: Seq[DumpDefect]): String = hazards.map(_.id).mkString(", ")

  /** Whether a dump of platform threads shows a carrier carrying a virtual thread. */
  def showsVirtualThreads(dump: ThreadDump): Boolean = dump.threads.exists(_.carrying)

  /**
   * Whether a dump shows the threads the JDK starts with its virtual-thread machinery (`VirtualThread-unblocker` on
   * JDK 24+, `VirtualThread-unparker` before): a library that only loads the class starts them too, so on JDK 24+
   * their scheduler tells whether a virtual thread ever ran ([[schedulerStarted]]).
   */
  def showsVirtualThreadMachinery(dump: ThreadDump): Boolean =
    dump.threads.exists(t => VirtualThreadServiceThreads.contains(t.name))

  /** `Thread.vthread_scheduler`'s answer: its pool has carriers, or has run tasks (`size = 2`, `steals = 24355`). */
  def schedulerStarted(output: String): Boolean = schedulerState(output).exists(s => s.carriers > 0 || s.steals > 0)

  /**
   * The virtual-thread scheduler as `Thread.vthread_scheduler` prints it (`ForkJoinPool@1f32c88[Running, parallelism
   * = 2, size = 2, active = 0, running = 0, steals = 24355, tasks = 0, submissions = 0, delayed = 20]`): its carriers,
   * the tasks it has run, and those running, queued or waiting on a timer now.
   */
  def schedulerState(output: String): Option[SchedulerState] =
    def field(k: String) = s"\\b$k = (\\d+)".r.findFirstMatchIn(output).map(_.group(1).toLong)
    for size <- field("size"); steals <- field("steals") yield
      SchedulerState(size, steals, Seq("active", "running", "tasks", "submissions", "delayed").flatMap(field).sum)

  private val VirtualThreadServiceThreads = Set("VirtualThread-unblocker", "VirtualThread-unparker")

/** The virtual-thread scheduler at one instant ([[SamplingSource.schedulerState]]). */
final case class SchedulerState(carriers: Long, steals: Long, busy: Long)
