package bulkhead.lab.faults

/** One assertion of a fault run, with the figures behind it. */
final case class Check(name: String, passed: Boolean, detail: String)

/**
 * Is a recorded fault run correct? Pure: reads a [[FaultRecord]] and the fault's [[FaultExpectation]], so it is
 * tested on recorded real runs.
 */
object FaultVerdict:
  /** Throughput counts as recovered when OK answers over a 1 s window reach this share of the pre-fault median. */
  val RecoveredShare = 0.8
  /** What the service promises (reference.conf, the breaker's reset-timeout): back within 5 s of the fault clearing. */
  val RecoveryLimitSeconds = 5.0
  /**
   * Threads (every thread of the service's dump) it may hold above its count before, once the load is over: a few,
   * for HotSpot's threads that come and go (G1's refinement, the JIT's compilers) and a fork-join worker. A thread per
   * fault, per connection or per call shows here: within a run, and over a whole suite in [[suiteChecks]].
   */
  val ThreadSlack = 5
  /**
   * Heap after a full GC may exceed the suite's first baseline by this factor plus this many MB: the connections to
   * the third party that the slow faults open (hundreds, each with its buffers, kept until their idle timeout) and the
   * meters of new statuses. Compared with the first baseline, never with the last run's, memory retained a little per
   * fault adds up and fails.
   */
  val HeapFactor = 1.2
  val HeapSlackMb = 32.0

  /** The checks of one run; `baseline` is the suite's first reading (before its first fault). */
  def checks(r: FaultRecord, e: FaultExpectation, baseline: Resources): Seq[Check] =
    Seq(answered(r, e), designed(r, e), retryAfter(r), breaker(r, e), recovery(r), threads(r), heap(r, baseline)) ++
      (if e.degrades then Seq(degraded(r)) else Nil)

  def passed(r: FaultRecord, e: FaultExpectation, baseline: Resources): Boolean =
    checks(r, e, baseline).forall(_.passed)

  /**
   * Over the runs of one service, in order: threads and heap from the first fault's start to the last fault's end. A
   * leak below a run's slack, repeated by every fault, fails here.
   */
  def suiteChecks(runs: Seq[FaultRecord]): Seq[Check] =
    if runs.isEmpty then Nil
    else
      val first = runs.head.before
      val last = runs.last.after
      Seq(
        Check("threads from the first fault's start to the last fault's end", first.threadsRead && last.threadsRead &&
          last.platformThreads <= first.platformThreads + ThreadSlack,
          s"${describe(first.platformThreads)} before ${runs.head.fault}, ${describe(last.platformThreads)} after " +
            s"${runs.last.fault}${grown(first, last)}"),
        Check("heap from the first fault's start to the last fault's end", first.heapRead && last.heapRead &&
          last.heapMb <= first.heapMb * HeapFactor + HeapSlackMb,
          f"${first.heapMb}%.1f MB before ${runs.head.fault}, ${last.heapMb}%.1f MB after ${runs.last.fault}"))

  def answered(r: FaultRecord, e: FaultExpectation): Check =
    val byGroup = r.totals.toSeq.groupBy(_._1._1).toSeq.sortBy(_._1).map { (group, entries) =>
      val sent = entries.map(_._2).sum
      val (answers, errors) = entries.map((k, n) => k._2 -> n).partition(_._1.answered)
      val answered = answers.map(_._2).sum
      val statuses = answers.sortBy(_._1).map((o, n) => s"${o.word}: $n").mkString(", ")
      val text = s"$group: sent $sent, answered $answered ($statuses)" +
        (if errors.nonEmpty then errors.map((o, n) => s"${o.word} $n").mkString("; no answer: ", ", ", "") else "")
      (errors.isEmpty, text)
    }
    Check("every request answered", byGroup.forall(_._1) && r.usersEnded,
      byGroup.map(_._2).mkString("; ") + (if r.usersEnded then "" else "; some users never finished"))

  def designed(r: FaultRecord, e: FaultExpectation): Check =
    val allowed = e.designed + 200
    val seen = r.statuses.keySet
    val other = seen -- allowed
    Check("designed statuses only", other.isEmpty,
      s"seen ${seen.toSeq.sorted.mkString(", ")}; designed ${allowed.toSeq.sorted.mkString(", ")}" +
        (if other.isEmpty then "" else s"; NOT designed: ${other.toSeq.sorted.mkString(", ")}"))

  def retryAfter(r: FaultRecord): Check =
    val n503 = r.statuses.getOrElse(503, 0)
    Check("503 carries Retry-After", r.missingRetryAfter == 0,
      if n503 == 0 then "no 503" else s"${n503 - r.missingRetryAfter} of $n503 with Retry-After")

  def breaker(r: FaultRecord, e: FaultExpectation): Check =
    val window = r.seconds.filter(s => s.second >= r.injectAt.toInt && s.second <= r.clearAt.toInt + 1)
    // Half-open (1) follows only an open breaker; the state is sampled once a second, and with a 1 s reset the open
    // and half-open states can both fall between two samples: the service's count of openings cannot be missed.
    val openings = r.seconds.flatMap(s => s.breakerOpenings.map(s.second -> _))
    val openingsBefore = openings.filter(_._1 <= r.injectAt.toInt).map(_._2).lastOption
      .orElse(openings.headOption.map(_._2))
    val openedByCount = openingsBefore.exists(b => window.flatMap(_.breakerOpenings).exists(_ > b))
    val openedAtAll = openings.nonEmpty && openings.map(_._2).max > openings.map(_._2).min
    val opened = window.flatMap(_.breaker).exists(_ >= 1) || openedByCount
    val last = r.seconds.flatMap(_.breaker).lastOption
    val states = Map(0.0 -> "closed", 1.0 -> "half-open", 2.0 -> "open")
    val text = s"${if opened then "opened" else "stayed closed"} during the fault; " +
      s"${last.map(v => states.getOrElse(v, v.toString)).getOrElse("unknown")} at the end"
    e.breaker match
      case BreakerExpectation.Opens => Check("circuit breaker opens, then closes", opened && last.contains(0.0), text)
      case BreakerExpectation.StaysClosed => Check("circuit breaker stays closed", !opened && !openedAtAll &&
          !r.seconds.flatMap(_.breaker).exists(_ > 0), text)

  /** Median OK answers per second before the fault (the first second is the users' ramp and is left out). */
  def baseline(r: FaultRecord): Double =
    val perSecond = (1 until r.injectAt.toInt).map(s => r.okPerTenth.slice(s * 10, s * 10 + 10).sum.toDouble)
    if perSecond.isEmpty then 0.0 else perSecond.sorted.apply(perSecond.size / 2)

  /** Seconds from the clearing to the end of the first 1 s window whose OK rate is back at the recovered share. */
  def recoverySeconds(r: FaultRecord): Option[Double] =
    val target = baseline(r) * RecoveredShare
    val clearTenth = (r.clearAt * 10).toInt
    (clearTenth + 10 to r.okPerTenth.size).find(end => r.okPerTenth.slice(end - 10, end).sum >= target)
      .map(end => end / 10.0 - r.clearAt)

  def recovery(r: FaultRecord): Check =
    val base = baseline(r)
    recoverySeconds(r) match
      case Some(s) => Check("throughput back within 5 s", base > 0 && s <= RecoveryLimitSeconds,
          f"$s%.1f s after clearing, ${RecoveredShare * 100}%.0f %% of the pre-fault $base%.0f OK/s")
      case None => Check("throughput back within 5 s", false, f"not back to ${RecoveredShare * 100}%.0f %% of $base%.0f OK/s")

  def threads(r: FaultRecord): Check =
    Check("platform threads back to baseline", r.before.threadsRead && r.after.threadsRead &&
      r.after.platformThreads <= r.before.platformThreads + ThreadSlack,
      s"${describe(r.before.platformThreads)} before, ${describe(r.after.platformThreads)} after (every thread of the " +
        s"dump)${grown(r.before, r.after)}")

  def heap(r: FaultRecord, baseline: Resources): Check =
    Check("heap back to the suite's baseline", baseline.heapRead && r.after.heapRead &&
      r.after.heapMb <= baseline.heapMb * HeapFactor + HeapSlackMb,
      f"${baseline.heapMb}%.1f MB before the suite's first fault, ${r.after.heapMb}%.1f MB after this one (used, " +
        "after a full GC; NaN: no full GC could be run, or no reading)")

  private def describe(threads: Int) = if threads < 0 then "no thread dump" else threads.toString

  /** The pools that hold more threads after than before, for the detail of a failed check. */
  private def grown(before: Resources, after: Resources): String =
    val more = after.pools.toSeq.sorted.collect {
      case (pool, n) if n > before.pools.getOrElse(pool, 0) => s"$pool ${before.pools.getOrElse(pool, 0)} -> $n"
    }
    if more.isEmpty || before.pools.isEmpty then "" else more.mkString("; grew: ", ", ", "")

  /** Degraded while held; and no longer once Redis is back (its connections re-opened): the last 2 s add none. */
  def degraded(r: FaultRecord): Check =
    val values = r.seconds.flatMap(_.degraded)
    val rose = values.nonEmpty && values.max > values.min
    val tail = r.seconds.filter(_.second >= r.endAt.toInt - 3).flatMap(_.degraded)
    val lateDegraded = if tail.size < 2 then Double.NaN else tail.last - tail.head
    Check("answers degraded (loyalty unavailable) while held, whole again after", rose && lateDegraded == 0,
      if values.isEmpty then "no gauge"
      else f"${values.max - values.min}%.0f degraded answers; ${lateDegraded}%.0f in the last ${tail.size - 1} s")
