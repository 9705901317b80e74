package bulkhead.lab.diagnose

import bulkhead.lab.model.{FixKind, Resource}

/** A `java.util.concurrent.Semaphore`: its holders while threads queue are its permits; cap = permits / hold. */
object SemaphoreReader extends WaitReader:
  val resource: Resource = Resource.Semaphore
  val unit = "permits"
  def claims(w: WaitResource): Boolean = semaphore(w)

  def fix(m: Measured, run: RunView): Option[Fix] =
    val n = ResourceReader.inFlight(m, run)
    Some(Fix(Nil, s"the semaphore acquired at ${m.subject} with >= $n permits (${ResourceReader.because(m, run)}), " +
      s"if what it guards can serve $n at once (it limits ${m.size.round} now)", FixKind.LimitSize))
