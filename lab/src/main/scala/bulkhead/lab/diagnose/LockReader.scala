package bulkhead.lab.diagnose

import bulkhead.lab.model.{FixKind, Resource}

/**
 * A monitor (`synchronized`) or an exclusive `java.util.concurrent` lock: one holder at a time, so its cap is
 * 1 / hold whatever the threads queued on it. More threads only lengthen the queue; the fix is a shorter or split
 * critical section.
 */
object LockReader extends WaitReader:
  val resource: Resource = Resource.Lock
  val unit = "lock"
  def claims(w: WaitResource): Boolean = lockLike(w)
  override def size(w: WaitResource): Double = 1

  def fix(m: Measured, run: RunView): Option[Fix] =
    val at = m.frame.getOrElse(m.subject)
    Some(Fix(Nil, s"shorten or split the critical section held in $at: one thread at a time holds it " +
      s"${Measured.fmt(m.hold)} s per request, so 1 / ${Measured.fmt(m.hold)} s = ${m.cap.round} req/s whatever the " +
      "threads; more threads only lengthen the queue on it (hold less inside it, or split the state it guards)",
      FixKind.CriticalSection))
