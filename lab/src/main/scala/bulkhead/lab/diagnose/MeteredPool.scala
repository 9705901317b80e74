package bulkhead.lab.diagnose

import bulkhead.lab.diagnose.Measured.*
import bulkhead.lab.model.PoolMeter
import bulkhead.lab.sample.Sample

/**
 * A pool the service's meters describe ([[PoolMeter]]) over a run's samples: its size, units in use and requests
 * waiting, on average over the scrapes. A resource seen both ways takes its size from the meter (the pool's own
 * setting, where the dump only shows the holders it caught) and its waiters from the dump (which tells what waits,
 * and where). `completedRate`: units taken and given back per second by its own counter, over the run (the rate
 * through it, which for a pool only some requests use is not the run's).
 */
final case class MeteredPool(meter: PoolMeter, size: Option[Double], inUse: Option[Double], waiting: Option[Double],
    completedRate: Option[Double] = None):
  /** `hikaricp_connections_active 4 of 4, 25 pending`: the meters' means, by their names. */
  def describe: String =
    def n(v: Double) = if math.abs(v - math.rint(v)) < 0.05 then f"$v%.0f" else f"$v%.1f"
    val use = meter.inUse.map(_.meter).orElse(meter.idle.map(m => s"${meter.unit} in use (${m.meter})"))
    val of = size.fold("")(s => s" of ${n(s)}")
    val queue = waiting.zip(meter.waiting).fold("")((w, m) =>
      s", ${n(w)} ${if m.meter.contains("pending") then "pending" else "queued"}")
    (use.zip(inUse).map((name, u) => s"$name ${n(u)}") .getOrElse(meter.label)) + of + queue

object MeteredPool:
  /** Each pool the window's scrapes describe, by its family, tags and unit, with its means. */
  def of(window: Seq[Sample]): Seq[MeteredPool] =
    val timed = window.flatMap(s => s.metrics.toSeq.flatMap(_.meters).map(s.second -> _))
    timed.groupBy((_, m) => (m.family, m.id, m.unit)).toSeq.map { (_, tms) =>
      val ms = tms.map(_._2)
      def avg(f: PoolMeter => Option[Double]) = Option(ms.flatMap(f)).filter(_.nonEmpty).map(mean)
      val counts = tms.flatMap((t, m) => m.completed.map(c => t -> c.value))
      val rate = for (t0, c0) <- counts.headOption; (t1, c1) <- counts.lastOption if t1 > t0 && c1 > c0
        yield (c1 - c0) / (t1 - t0)
      MeteredPool(ms.last, median(ms.flatMap(_.size.map(_.value))), avg(_.used), avg(_.waiting.map(_.value)), rate)
    }

  /**
   * The metered pool that is the resource threads were seen waiting on: among pools of units other than threads
   * (a thread pool is read by its name, [[ThreadPoolReader]]), one whose figures agree with what the dumps saw: its
   * requests waiting with the threads queued (when both are seen), else its units in use with the holders found (full
   * when threads queue); the closest of them. A dump can miss holders (threads past the borrow, in code that does not
   * name it) where it never misses waiters. None when no meter agrees: a meter is only shown beside a resource it
   * describes.
   */
  def matching(pools: Seq[MeteredPool], holders: Double, waiters: Double): Option[MeteredPool] =
    def agree(meter: Double, dump: Double) = math.abs(meter - dump) <= dump.max(1) * 0.5
    pools.filter(p => p.meter.unit != "threads" && p.inUse.isDefined && p.size.exists(_ > 0))
      .filter { p =>
        val used = p.inUse.get
        val full = p.size.exists(s => used >= s * Diagnosis.FullShare)
        (waiters > 0 && p.waiting.exists(agree(_, waiters))) ||
          (agree(used, holders) && (waiters <= 0 || full || p.waiting.exists(_ > 0)))
      }
      .minByOption(p => math.abs(p.inUse.get - holders) + p.waiting.fold(waiters)(w => math.abs(w - waiters)))
