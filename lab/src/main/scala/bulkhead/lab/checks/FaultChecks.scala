package bulkhead.lab.checks

import bulkhead.lab.record.{BreakerExpectation, FaultExpectation, FaultTimeline, RunRecord}
import bulkhead.lab.sample.Retained

/**
 * Is a recorded fault run correct? Pure: reads a [[RunRecord]] with its [[FaultTimeline]] (the fault, its phases,
 * every request, what correct looks like) and its samples (the service's gauges each second), so it is tested on
 * recorded real runs.
 */
object FaultChecks:
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

  /** The fault of a fault run's record; any other record is refused. */
  def timeline(r: RunRecord): FaultTimeline =
    r.fault.getOrElse(throw IllegalArgumentException(s"${r.info.name} is not a fault run"))

  /** The checks of one run; `baseline` is what its service retained before its first fault. */
  def checks(r: RunRecord, baseline: Retained): Seq[Check] =
    val t = timeline(r)
    Seq(answered(t), designed(t, t.expect), retryAfter(t), breaker(r), recovery(t), threads(t.before, t.after),
      heap(baseline, t.after)) ++ (if t.expect.degrades then Seq(degraded(r)) else Nil) ++ HungChecks.checks(r) ++
        HostileChecks.checks(t)

  /**
   * Over the runs of one service, in order: threads and heap from the first fault's start to the last fault's end. A
   * leak below a run's slack, repeated by every fault, fails here.
   */
  def suiteChecks(runs: Seq[FaultTimeline]): Seq[Check] =
    if runs.isEmpty then Nil
    else
      val first = runs.head.before
      val last = runs.last.after
      Seq(
        Check("threads from the first fault's start to the last fault's end", threadsBack(first, last),
          s"${describe(first.platformThreads)} before ${runs.head.fault}, ${describe(last.platformThreads)} after " +
            s"${runs.last.fault}${grown(first, last)}"),
        Check("heap from the first fault's start to the last fault's end", heapBack(first, last),
          s"${mb(first.heapMb)} MB before ${runs.head.fault}, ${mb(last.heapMb)} MB after ${runs.last.fault}"))

  def answered(t: FaultTimeline): Check =
    val byGroup = t.totals.groupBy(_.group).toSeq.sortBy(_._1).map { (group, counts) =>
      val sent = counts.map(_.count).sum
      val (answers, errors) = counts.partition(_.outcome.answered)
      val statuses = answers.sortBy(_.outcome).map(c => s"${c.outcome.word}: ${c.count}").mkString(", ")
      val text = s"$group: sent $sent, answered ${answers.map(_.count).sum} ($statuses)" +
        (if errors.nonEmpty then errors.map(c => s"${c.outcome.word} ${c.count}").mkString("; no answer: ", ", ", "")
         else "")
      (errors.isEmpty, text)
    }
    Check("every request answered", byGroup.forall(_._1) && t.usersEnded,
      byGroup.map(_._2).mkString("; ") + (if t.usersEnded then "" else "; some users never finished"))

  def designed(t: FaultTimeline, e: FaultExpectation): Check =
    val allowed = e.designed + 200
    val seen = t.statuses.keySet
    val other = seen -- allowed
    Check("designed statuses only", other.isEmpty,
      s"seen ${seen.toSeq.sorted.mkString(", ")}; designed ${allowed.toSeq.sorted.mkString(", ")}" +
        (if other.isEmpty then "" else s"; NOT designed: ${other.toSeq.sorted.mkString(", ")}"))

  def retryAfter(t: FaultTimeline): Check =
    val n503 = t.statuses.getOrElse(503, 0)
    Check("503 carries Retry-After", t.missingRetryAfter == 0,
      if n503 == 0 then "no 503" else s"${n503 - t.missingRetryAfter} of $n503 with Retry-After")

  def breaker(r: RunRecord): Check =
    val t = timeline(r)
    val seconds = r.faultSeconds
    val window = seconds.filter(s => s.second >= t.injectAt.toInt && s.second <= t.clearAt.toInt + 1)
    // Half-open (1) follows only an open breaker; the state is sampled once a second, and with a 1 s reset the open
    // and half-open states can both fall between two samples: the service's count of openings cannot be missed.
    val openings = seconds.flatMap(s => s.breakerOpenings.map(s.second -> _))
    val openingsBefore = openings.filter(_._1 <= t.injectAt.toInt).map(_._2).lastOption
      .orElse(openings.headOption.map(_._2))
    val openedByCount = openingsBefore.exists(b => window.flatMap(_.breakerOpenings).exists(_ > b))
    val openedAtAll = openings.nonEmpty && openings.map(_._2).max > openings.map(_._2).min
    val opened = window.flatMap(_.breaker).exists(_ >= 1) || openedByCount
    val last = seconds.flatMap(_.breaker).lastOption
    val states = Map(0.0 -> "closed", 1.0 -> "half-open", 2.0 -> "open")
    val text = s"${if opened then "opened" else "stayed closed"} during the fault; " +
      s"${last.map(v => states.getOrElse(v, v.toString)).getOrElse("unknown")} at the end"
    t.expect.breaker match
      case BreakerExpectation.Opens => Check("circuit breaker opens, then closes", opened && last.contains(0.0), text)
      case BreakerExpectation.StaysClosed => Check("circuit breaker stays closed", !opened && !openedAtAll &&
          !seconds.flatMap(_.breaker).exists(_ > 0), text)

  /** Median OK answers per second before the fault ([[Recovery.baseline]]). */
  def baseline(t: FaultTimeline): Double = Recovery.baseline(t.okPerTenth, t.injectAt)

  /** Seconds from the clearing until OK throughput was back ([[Recovery.seconds]]), over the whole recorded run. */
  def recoverySeconds(t: FaultTimeline): Option[Double] = Recovery.seconds(t.okPerTenth, t.injectAt, t.clearAt)

  def recovery(t: FaultTimeline): Check =
    val base = baseline(t)
    recoverySeconds(t) match
      case Some(s) => Check("throughput back within 5 s", base > 0 && s <= RecoveryLimitSeconds,
          f"$s%.1f s after clearing, ${Recovery.RecoveredShare * 100}%.0f %% of the pre-fault $base%.0f OK/s")
      case None => Check("throughput back within 5 s", false,
          f"not back to ${Recovery.RecoveredShare * 100}%.0f %% of $base%.0f OK/s")

  def threads(before: Retained, after: Retained): Check =
    Check("platform threads back to baseline", threadsBack(before, after),
      s"${describe(before.platformThreads)} before, ${describe(after.platformThreads)} after (every thread of the " +
        s"dump)${grown(before, after)}")

  def heap(baseline: Retained, after: Retained): Check =
    Check("heap back to the suite's baseline", heapBack(baseline, after),
      s"${mb(baseline.heapMb)} MB before the suite's first fault, ${mb(after.heapMb)} MB after this one (used, " +
        "after a full GC; none: no full GC could be run, or no reading)")

  /** Degraded while held; and no longer once Redis is back (its connections re-opened): the last 2 s add none. */
  def degraded(r: RunRecord): Check =
    val t = timeline(r)
    val seconds = r.faultSeconds
    val values = seconds.flatMap(_.degraded)
    val rose = values.nonEmpty && values.max > values.min
    val tail = seconds.filter(_.second >= t.endAt.toInt - 3).flatMap(_.degraded)
    val lateDegraded = if tail.size < 2 then Double.NaN else tail.last - tail.head
    Check("answers degraded (loyalty unavailable) while held, whole again after", rose && lateDegraded == 0,
      if values.isEmpty then "no gauge"
      else f"${values.max - values.min}%.0f degraded answers; ${lateDegraded}%.0f in the last ${tail.size - 1} s")

  /** Every thread of the dump after at most [[ThreadSlack]] above before; a dump that failed fails. */
  private def threadsBack(before: Retained, after: Retained): Boolean =
    (for b <- before.platformThreads; a <- after.platformThreads yield a <= b + ThreadSlack).contains(true)

  /** Heap after within [[HeapFactor]] x the baseline + [[HeapSlackMb]]; a reading that failed fails. */
  private def heapBack(baseline: Retained, after: Retained): Boolean =
    (for b <- baseline.heapMb; a <- after.heapMb yield a <= b * HeapFactor + HeapSlackMb).contains(true)

  private def describe(threads: Option[Int]) = threads.fold("no thread dump")(_.toString)

  private def mb(heap: Option[Double]) = heap.fold("none")(h => f"$h%.1f")

  /** The pools that hold more threads after than before, for the detail of a failed check. */
  private def grown(before: Retained, after: Retained): String =
    val more = after.pools.toSeq.sorted.collect {
      case (pool, n) if n > before.pools.getOrElse(pool, 0) => s"$pool ${before.pools.getOrElse(pool, 0)} -> $n"
    }
    if more.isEmpty || before.pools.isEmpty then "" else more.mkString("; grew: ", ", ", "")
