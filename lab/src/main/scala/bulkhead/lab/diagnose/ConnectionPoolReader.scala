package bulkhead.lab.diagnose

import bulkhead.lab.model.{FixKind, Resource}

/**
 * A pool of connections (JDBC, an HTTP client's): threads queue where they borrow one, and its holders mostly wait
 * in a socket read on it. Found by that shape, or by the service's meter of it counting connections, not by the pool's
 * class: its library is named from the frames the waiters parked in ([[PoolLibrary]]), and a known library only adds
 * the name of its setting to the fix.
 */
object ConnectionPoolReader extends WaitReader:
  val resource: Resource = Resource.ConnectionPool
  val unit = "connections"
  /** Holders in a socket read; a semaphore's only when it is inside a pool's lending code. */
  def claims(w: WaitResource): Boolean = w.mostlyHolders.contains("socket") && (!semaphore(w) || pooled(w))
  override def claims(w: WaitResource, meter: Option[MeteredPool]): Boolean = claims(w) || connections(meter)

  override def read(run: RunView): Seq[Measured] =
    val outbound = WaitResources.outbound(run)
    mine(run).map { w =>
      val m = measure(w, run, outbound)
      PoolLibrary.of(w).fold(m)(lib => m.copy(chain = m.chain.head +: s"a pool of ${lib.describe}" +: m.chain.tail,
        detail = m.detail + s"; the pool: ${lib.describe}")).copy(readBy = Some(this))
    }

  def fix(m: Measured, run: RunView): Option[Fix] =
    val n = ResourceReader.inFlight(m, run)
    val peers = WaitResources.outbound(run).toSeq.sortBy(-_._2).take(2).map(_._1)
    val setting = WaitResources.of(run).find(w => m.key.contains(w.key)).flatMap(PoolLibrary.of).flatMap(_.setting)
    Some(Fix(Nil, s"the connection pool borrowed at ${m.subject} of >= $n connections" +
      setting.fold("")(s => s" ($s)") + s" (${ResourceReader.because(m, run)}); the dependency behind it" +
      (if peers.isEmpty then "" else s" (${peers.mkString(", ")})") + s" must serve $n calls at once",
      FixKind.ConnectionPoolSize, setting = setting, value = Some(n)))
