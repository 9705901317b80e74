package bulkhead.lab.diagnose

/**
 * A reader of a resource found from waits ([[WaitResources]]): it claims the waits of its kind, and sizes them (the
 * holders while threads queue, unless the kind has a known size, or the service's meters give it: [[MeteredPool]]).
 */
abstract class WaitReader extends ResourceReader:
  /** True when `w` is this kind of resource; the readers of [[ResourceReader.FromWaits]] claim disjoint waits. */
  def claims(w: WaitResource): Boolean
  /** The same with the service's meter of it, where one matched: a meter's unit says what kind of resource it is. */
  def claims(w: WaitResource, meter: Option[MeteredPool]): Boolean = claims(w)
  def size(w: WaitResource): Double =
    Measured.median(w.heldWhenFull).getOrElse(w.holders.max).max(1)

  def read(run: RunView): Seq[Measured] =
    val outbound = WaitResources.outbound(run)
    val metered = MeteredPool.of(run.window)
    WaitResources.of(run).flatMap { w =>
      val meter = MeteredPool.matching(metered, Measured.mean(w.holders), Measured.mean(w.waiters))
      Option.when(claims(w, meter))(w.measured(resource, meter.flatMap(_.size).getOrElse(size(w)), unit, run,
        outbound, meter))
    }

  protected def lockLike(w: WaitResource): Boolean =
    w.first.kind == "monitor" || Seq("ReentrantLock", "ReentrantReadWriteLock", "StampedLock").exists(w.blocker.contains)
  protected def semaphore(w: WaitResource): Boolean = w.blocker.contains("Semaphore")
  /** The service's meter of it counts connections: a pool of connections, whatever its holders were seen doing. */
  protected def connections(meter: Option[MeteredPool]): Boolean = meter.exists(_.meter.unit == "connections")
