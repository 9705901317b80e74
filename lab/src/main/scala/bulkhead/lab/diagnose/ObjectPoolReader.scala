package bulkhead.lab.diagnose

import bulkhead.lab.model.{FixKind, Resource}
import bulkhead.lab.sample.PoolSample

/**
 * A pool of objects of any library (Apache Commons Pool and what is built on it, a driver's own pool, a bounded bag):
 * threads park inside the pool's code that lends (a borrow, acquire, lease or take), and its holders do something
 * else than read a socket on the object. Found by that shape; the library is named from the frames ([[PoolLibrary]]),
 * never from a list. When the holders keep the object across work that does not use it (they sleep, or queue on
 * another resource, with it borrowed), the first fix is to give it back before that work; the pool's size is the
 * second.
 */
object ObjectPoolReader extends WaitReader:
  val resource: Resource = Resource.ObjectPool
  val unit = "objects"
  def claims(w: WaitResource): Boolean = pooled(w)

  override def read(run: RunView): Seq[Measured] =
    val outbound = WaitResources.outbound(run)
    mine(run).map { w =>
      val m = measure(w, run, outbound)
      val lib = PoolLibrary.of(w)
      val pool = lib.fold(s"an object pool at ${w.site}")(l => s"an object pool of ${l.describe}")
      val holding = w.mostlyHolders.fold("the holders seen doing nothing")(h => s"the holders ${doing(h)} with the " +
        "object borrowed" + m.frame.fold("")(f => s" (in $f)"))
      m.copy(detail = m.detail + s"; $pool", chain = Seq(m.chain.head, pool, holding), readBy = Some(this))
    }

  /** What holders do, as a verb: `sleep`, `compute`, `read a socket`, `queue on <resource>`. */
  private def doing(wait: String): String = wait match
    case "cpu" => "compute"
    case "sleep" => "sleep"
    case "socket" => "read a socket"
    case other => s"queue on $other"

  /** The holders keep the object across work that does not use it: a sleep, or a queue on another resource. */
  private def heldAcross(w: WaitResource): Option[String] =
    w.mostlyHolders.filter(h => h == "sleep" || !PoolSample.Terminal(h))

  def fix(m: Measured, run: RunView): Option[Fix] =
    val n = ResourceReader.inFlight(m, run)
    val w = WaitResources.of(run).find(x => m.key.contains(x.key))
    val lib = w.flatMap(PoolLibrary.of)
    val named = lib.flatMap(_.setting)
    val setting = named.fold("")(s => s" ($s)")
    val at = lib.fold(m.subject)(_.describe)
    val size = s"the pool's size >= $n objects$setting (${ResourceReader.because(m, run)}), if what each object " +
      "stands for can serve that many at once"
    val across = w.flatMap(heldAcross)
    Some(across.fold(Fix(Nil, s"the pool of $at: $size", FixKind.LimitSize, setting = named, value = Some(n))) { work =>
      val where = m.frame.fold("")(f => s" in $f")
      Fix(Nil, s"release the object before that work: the holders ${doing(work)}$where with it borrowed from $at, " +
        s"so each keeps it ${Measured.fmt(m.hold)} s for a use that needs little of that time (give it back before " +
        s"the slow work, borrow again after if needed); beside it, $size", FixKind.ReleaseSooner, setting = named,
        value = Some(n))
    })
