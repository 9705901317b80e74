package bulkhead.lab.diagnose

import bulkhead.lab.diagnose.Measured.*
import bulkhead.lab.model.Resource
import bulkhead.lab.sample.{PoolSample, ResourceSample}

/**
 * A resource found from waits ([[ResourceSample]]) over a run's samples: waiters and holders per sample (none in a
 * sample that did not see it), and what its holders do. Little's law on it: holders = rate x hold, so hold = mean
 * holders / rate (every answer crosses it: the waiters are the threads serving the requests); size = the holders
 * while threads queue (a full resource lets no more in), or 1 for a lock; cap = size / hold.
 */
final case class WaitResource(key: String, samples: Seq[Option[ResourceSample]]):
  private val seen = samples.flatten
  val first: ResourceSample = seen.head
  def blocker: String = first.blocker
  def site: String = first.site
  def waiters: Seq[Double] = samples.map(_.fold(0.0)(_.waiters.toDouble))
  def holders: Seq[Double] = samples.map(_.fold(0.0)(_.holders.toDouble))
  /** Holders while threads queued: how many it lets in at once. */
  def heldWhenFull: Seq[Double] = seen.filter(_.waiters > 0).map(_.holders.toDouble)
  def saturated: Boolean = mostly(waiters.map(_ > 0))
  /** A wait for a completion: no thread owns it and none is inside ([[ResourceSample.completion]]). */
  def completion: Boolean = mostly(seen.map(_.completion))
  /** The resource's own frames as the waiters called it, from the wait down (see [[ResourceSample.through]]). */
  def through: Seq[String] = seen.map(_.through).filter(_.nonEmpty).groupMapReduce(identity)(_ => 1)(_ + _)
    .maxByOption(_._2).map(_._1).getOrElse(Nil)
  /** The pools whose threads run a completion's library, by their mean count of threads. */
  def completedBy: Map[String, Double] =
    seen.flatMap(_.completedBy).groupMapReduce(_._1)(_._2.toDouble)(_ + _).view.mapValues(_ / samples.size).toMap
  def holderPools: Map[String, Double] =
    seen.flatMap(_.holderPools).groupMapReduce(_._1)(_._2.toDouble)(_ + _).view.mapValues(_ / samples.size).toMap
  /** What the holders do, over every sample: `cpu`, `sleep`, `socket`, or another resource's key. */
  def holderWaits: Map[String, Int] = seen.flatMap(_.holderWaits).groupMapReduce(_._1)(_._2)(_ + _)
  def mostlyHolders: Option[String] = holderWaits.maxByOption(_._2).map(_._1)
  def waiterPools: Map[String, Double] =
    seen.flatMap(_.waiterPools).groupMapReduce(_._1)(_._2.toDouble)(_ + _).view.mapValues(_ / samples.size).toMap
  def holderFrame: Option[String] =
    seen.flatMap(_.holderFrame).groupMapReduce(identity)(_ => 1)(_ + _).maxByOption(_._2).map(_._1)
  def caller: Option[String] = seen.flatMap(_.caller).headOption
  /** Another resource its holders mostly queue on: then this one is a symptom of that one. */
  def waitsOn: Option[String] = mostlyHolders.filterNot(PoolSample.Terminal)

  /**
   * Its occupancy in each sample: its size while threads queue on it (a free unit would have been taken: the holders
   * a dump sees below its size then are units being handed over, which counts in the hold), else its holders, or
   * the units in use `unqueued` says (a meter's mean) where there is one.
   */
  def occupancy(size: Double, unqueued: Option[Double] = None): Seq[Double] =
    samples.map(_.fold(unqueued.getOrElse(0.0))(s =>
      if s.waiters > 0 then size else unqueued.getOrElse(s.holders.toDouble).min(size)))

  /**
   * The resource measured as `resource`, of `size` units of `unit`; with a `meter` (the service's own figures of it),
   * the units in use are the meter's, shown beside what the dumps saw.
   */
  def measured(resource: Resource, size: Double, unit: String, run: RunView, outbound: Map[String, Double],
      meter: Option[MeteredPool] = None): Measured =
    // A meter's units in use count the units being handed from a holder to a waiter as free (Hikari's active
    // connections read 3.4 of 4 with 20 threads pending in every dump, a bound 10 % above the pool's 100 ms holds
    // allow): while threads queue, the resource is full whatever a gauge read at that instant.
    val occupancy = mean(this.occupancy(size, meter.flatMap(_.inUse))).min(size)
    val metered = meter.fold("")(m => s" (${m.describe})")
    // Its own counter's rate, where its meter has one: a pool only some routes use is crossed by their answers only.
    val counted = for m <- meter; r <- m.completedRate; c <- m.meter.completed if r > 0 yield (r, c.meter)
    val rate = counted.fold(run.answeredRate)(_._1)
    val what = mostlyHolders.fold("nothing seen")(WaitResources.describe(_, outbound))
    val pools = waiterPools.toSeq.sortBy(-_._2).map((p, n) => f"$n%.1f of $p").mkString(", ")
    Measured(resource, site, size, occupancy, rate, saturated, Some(mean(waiters)),
      f"${mean(waiters)}%.1f threads wait at $site for $blocker ($pools), ${occupancy}%.1f of ${size}%.0f $unit held" +
        metered + holderFrame.fold("")(f => s" (in $f)") + s", the holders $what" +
        counted.fold("")((r, c) => f"; $r%.1f /s through it ($c), of the run's ${run.answeredRate}%.1f answers/s"),
      frame = holderFrame.orElse(caller), key = Some(key), waitsOn = waitsOn, ownRate = counted.isDefined,
      holdersDo = mostlyHolders,
      chain = Seq(f"${resource.key} at $site: ${occupancy}%.1f of ${size}%.0f $unit held, ${mean(waiters)}%.1f waiting" +
        metered,
        s"holders $what"))

object WaitResources:
  /** The resources of a run's window: waits with holders, and waits for a completion (see [[WaitResource]]). */
  def of(run: RunView): Seq[WaitResource] =
    val keys = run.window.flatMap(_.resources.map(_.key)).distinct
    keys.map(k => WaitResource(k, run.window.map(_.resources.find(_.key == k))))
      .filter(w => w.holders.exists(_ > 0) || w.completion)

  /** The outbound connections over the samples, by remote address (mean count). */
  def outbound(run: RunView): Map[String, Double] =
    run.window.flatMap(_.outbound).groupMapReduce(_._1)(_._2.toDouble)(_ + _).view
      .mapValues(_ / run.window.size.max(1)).toMap

  /** What a holder's wait means in a sentence; a socket read names the peers the process is connected to. */
  def describe(wait: String, outbound: Map[String, Double]): String = wait match
    case "cpu" => "compute (on a core)"
    case "sleep" => "sleep (the work's own time)"
    case "socket" =>
      val peers = outbound.toSeq.sortBy(-_._2).take(3).map((a, n) => f"$a x$n%.0f").mkString(", ")
      "wait in a socket read (a remote call" + (if peers.isEmpty then ")" else s" to $peers)")
    case other => s"queue on $other"
