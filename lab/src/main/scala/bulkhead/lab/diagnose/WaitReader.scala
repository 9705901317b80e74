package bulkhead.lab.diagnose

/**
 * A reader of a resource found from waits ([[WaitResources]]): it claims the waits of its kind, and sizes them (the
 * holders while threads queue, unless the kind has a known size, or the service's meters give it: [[MeteredPool]]).
 * Which reader reads a wait is decided once, for every reader, by [[WaitReader.kindOf]]: the first of
 * [[ResourceReader.FromWaits]] that claims it.
 */
abstract class WaitReader extends ResourceReader:
  /** True when `w` has this kind's shape; a reader earlier in [[ResourceReader.FromWaits]] may claim it first. */
  def claims(w: WaitResource): Boolean
  /** The same with the service's meter of it, where one matched: a meter's unit says what kind of resource it is. */
  def claims(w: WaitResource, meter: Option[MeteredPool]): Boolean = claims(w)
  def size(w: WaitResource): Double =
    Measured.median(w.heldWhenFull).getOrElse(w.holders.max).max(1)

  /** The waits of `run` this reader reads: those whose first claim is its own. */
  protected def mine(run: RunView): Seq[WaitResource] =
    WaitResources.of(run).filter(w => WaitReader.kindOf(w, WaitReader.meterOf(w, run)).contains(this))

  /** `w` measured as this reader's kind: sized, and its units in use counted, by the service's meter where one matched. */
  protected def measure(w: WaitResource, run: RunView, outbound: Map[String, Double]): Measured =
    val meter = WaitReader.meterOf(w, run)
    w.measured(resource, meter.flatMap(_.size).getOrElse(size(w)), unit, run, outbound, meter).copy(readBy = Some(this))

  def read(run: RunView): Seq[Measured] =
    val outbound = WaitResources.outbound(run)
    mine(run).map(measure(_, run, outbound))

  protected def lockLike(w: WaitResource): Boolean =
    w.first.kind == "monitor" || Seq("ReentrantLock", "ReentrantReadWriteLock", "StampedLock").exists(w.blocker.contains)
  protected def semaphore(w: WaitResource): Boolean = w.blocker.contains("Semaphore")
  /** The service's meter of it counts connections: a pool of connections, whatever its holders were seen doing. */
  protected def connections(meter: Option[MeteredPool]): Boolean = meter.exists(_.meter.unit == "connections")

  /**
   * A bounded set of objects lent and returned: the waiters parked inside code of the resource's own that borrows,
   * acquires, leases or takes (its frames between the wait and the caller, whoever wrote them), not in the caller's.
   */
  protected def pooled(w: WaitResource): Boolean = PoolLibrary.lentAt(w).isDefined

object WaitReader:
  /** The one reader of a wait: the first of [[ResourceReader.FromWaits]], in order, that claims it. */
  def kindOf(w: WaitResource, meter: Option[MeteredPool] = None): Option[WaitReader] =
    ResourceReader.FromWaits.find(_.claims(w, meter))

  /** The service's meter of the resource `w` waits on, matched by its figures (units in use, waiters). */
  def meterOf(w: WaitResource, run: RunView): Option[MeteredPool] =
    MeteredPool.matching(MeteredPool.of(run.window), Measured.mean(w.holders), Measured.mean(w.waiters))
