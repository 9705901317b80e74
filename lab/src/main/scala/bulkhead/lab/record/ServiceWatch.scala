package bulkhead.lab.record

/**
 * One second of a fault run as the lab watched the service from outside: the /health probes that ended in it (on the
 * watcher's own keep-alive connection) and how many got 200, the slowest of them (an unanswered probe counts the time
 * until it failed), and at the second's end the service's open file descriptors and its log's size in bytes.
 * `labPausedProbes` of the probes overlapped a pause the lab itself put on the service (a full GC to read its heap):
 * they count among the probes and the 200s, their time in `labPausedWorstMs`, not in `healthWorstMs`.
 */
final case class WatchSecond(second: Int, healthProbes: Int, healthOk: Int, healthWorstMs: Double,
    descriptors: Option[Int], logBytes: Option[Long], labPausedProbes: Int = 0, labPausedWorstMs: Double = 0.0)

/** A stretch (seconds of the run) in which the lab itself stopped the service, and why. */
final case class LabPause(from: Double, to: Double, what: String)

/**
 * What the lab watched during a fault run, for every fault: /health, descriptors and the log's size second by second,
 * the log's size and the descriptors when the load started and once it stopped and every extra connection was
 * closed. The promise it checks: the service answers /health within a second whatever its clients do, and clients'
 * mistakes never cost a log line each.
 */
final case class ServiceWatch(seconds: Seq[WatchSecond], logBytesBefore: Long, logBytesAfter: Long,
    descriptorsBefore: Option[Int], descriptorsAfter: Option[Int], probeEveryMs: Long,
    labPauses: Seq[LabPause] = Nil):
  /** Bytes the service's log grew by over the run. */
  def logBytes: Long = logBytesAfter - logBytesBefore
  def healthProbes: Int = seconds.map(_.healthProbes).sum
  def healthOk: Int = seconds.map(_.healthOk).sum
  /**
   * The slowest /health probe of the whole seconds from `from` to before `to` (seconds of the run), if any, leaving
   * out the probes the lab's own pauses held (see [[labPausedWorstMs]]).
   */
  def healthWorstMs(from: Double = 0, to: Double = Double.MaxValue): Option[Double] =
    within(from, to).filter(s => s.healthProbes > s.labPausedProbes).map(_.healthWorstMs).maxOption
  /** The slowest of the probes that overlapped one of the lab's own pauses, in those seconds, if any. */
  def labPausedWorstMs(from: Double = 0, to: Double = Double.MaxValue): Option[Double] =
    within(from, to).filter(_.labPausedProbes > 0).map(_.labPausedWorstMs).maxOption
  def labPausedProbes: Int = seconds.map(_.labPausedProbes).sum
  private def within(from: Double, to: Double) = seconds.filter(s => s.second >= from.toInt && s.second < to.toInt)
  def descriptorsMax: Option[Int] = seconds.flatMap(_.descriptors).maxOption
