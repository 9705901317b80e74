package bulkhead.lab.diagnose

import bulkhead.lab.model.{FixKind, Resource}

/**
 * Any other resource threads queue for and then hold (an object pool, a bounded hand-off): its holders while threads
 * queue are its size.
 */
object LimitReader extends WaitReader:
  val resource: Resource = Resource.Limit
  val unit = "slots"
  /** The last reader: what no other kind claims. */
  def claims(w: WaitResource): Boolean = true

  def fix(m: Measured, run: RunView): Option[Fix] =
    val n = ResourceReader.inFlight(m, run)
    Some(Fix(Nil, s"the resource taken at ${m.subject} sized >= $n (${ResourceReader.because(m, run)}), if what it " +
      "protects can take that many at once", FixKind.LimitSize))
