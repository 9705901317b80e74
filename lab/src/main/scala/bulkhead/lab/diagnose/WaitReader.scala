package bulkhead.lab.diagnose

/**
 * A reader of a resource found from waits ([[WaitResources]]): it claims the waits of its kind, and sizes them (the
 * holders while threads queue, unless the kind has a known size). Which reader reads a wait is decided once, for
 * every reader, by [[WaitReader.kindOf]]: the first of [[ResourceReader.FromWaits]] that claims it.
 */
abstract class WaitReader extends ResourceReader:
  /** True when `w` has this kind's shape; a reader earlier in [[ResourceReader.FromWaits]] may claim it first. */
  def claims(w: WaitResource): Boolean
  def size(w: WaitResource): Double =
    Measured.median(w.heldWhenFull).getOrElse(w.holders.max).max(1)

  /** The waits of `run` this reader reads: those whose first claim is its own. */
  protected def mine(run: RunView): Seq[WaitResource] = WaitResources.of(run).filter(w => WaitReader.kindOf(w).contains(this))

  def read(run: RunView): Seq[Measured] =
    val outbound = WaitResources.outbound(run)
    mine(run).map(w => w.measured(resource, size(w), unit, run, outbound).copy(readBy = Some(this)))

  protected def lockLike(w: WaitResource): Boolean =
    w.first.kind == "monitor" || Seq("ReentrantLock", "ReentrantReadWriteLock", "StampedLock").exists(w.blocker.contains)
  protected def semaphore(w: WaitResource): Boolean = w.blocker.contains("Semaphore")

  /**
   * A bounded set of objects lent and returned: the waiters parked inside code of the resource's own that borrows,
   * acquires, leases or takes (its frames between the wait and the caller, whoever wrote them), not in the caller's.
   */
  protected def pooled(w: WaitResource): Boolean = PoolLibrary.lentAt(w).isDefined

object WaitReader:
  /** The one reader of a wait: the first of [[ResourceReader.FromWaits]], in order, that claims it. */
  def kindOf(w: WaitResource): Option[WaitReader] = ResourceReader.FromWaits.find(_.claims(w))
