package bulkhead.lab.sample

/**
 * The safe source of one JVM's virtual threads over a run: JFR events ([[VirtualThreadEvents]]) opened once, at the
 * first sample that shows virtual threads, into [[VirtualThreadWaits]]; closed at the end, when each sample is
 * completed with the virtual threads in a recorded wait at its instant. A stream that cannot start is said in the
 * run's source, and the samples keep their platform threads.
 */
final class VirtualSource(events: () => VirtualThreadEvents):
  private val waits = VirtualThreadWaits()
  @volatile private var stream: Option[VirtualThreadEvents] = None
  @volatile private var error: Option[String] = None
  @volatile private var from: Option[Double] = None

  /** Opens the stream at `second`, unless it is open or failed already. */
  def open(second: Double): Unit = synchronized {
    if stream.isEmpty && error.isEmpty then
      val e = events()
      e.start(waits) match
        case Right(_) =>
          stream = Some(e)
          from = Some(second)
        case Left(why) => error = Some(why)
  }

  /** Stops the stream: after the last events arrived, the recording in the JVM ends. */
  def close(): Unit = synchronized {
    stream.foreach(_.stop())
    stream = None
  }

  /** `sample` with the virtual threads in a recorded wait at `atNanos`, and those alive then when counted. */
  def complete(sample: Sample, atNanos: Long): Sample =
    if from.isEmpty then sample
    else
      val r = waits.readingAt(atNanos)
      sample.copy(pools = sample.pools ++ r.pools, resources = sample.resources ++ r.resources,
        virtualThreads = waits.aliveAt(atNanos))

  /** `platform`'s choice, with this source's state: opened at which second, or why it did not open. */
  def describe(platform: SamplingSource): SamplingSource =
    (error, from) match
      case (Some(why), _) if platform.virtual.nonEmpty =>
        platform.copy(virtual = None, reason = s"${platform.reason}; virtual threads unseen: $why")
      case (_, Some(second)) => platform.copy(virtualFrom = Some(second))
      case _ => platform

object VirtualSource:
  def nowNanos: Long =
    val i = java.time.Instant.now()
    i.getEpochSecond * 1_000_000_000L + i.getNano
