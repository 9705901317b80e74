package bulkhead.lab.sample

/**
 * Threads that wait on each other in a cycle, so that none ever goes on: the JVM's own report in a text dump
 * (`Found one Java-level deadlock`), and, for a dump without one (a JSON dump has none), each cycle of threads where
 * every thread waits for a monitor or lock that the next one holds.
 */
object Deadlocks:
  /** Each deadlock as the names of its threads. */
  def of(dump: ThreadDump): Seq[Seq[String]] =
    if dump.deadlocks.nonEmpty then Seq(dump.deadlocks)
    else
      val owner = dump.threads.flatMap(t => t.holds.map(_ -> t)).toMap
      def next(t: DumpedThread): Option[DumpedThread] =
        (t.blockedOn.map(ThreadWait.identityOf) ++ t.waitingOnIdentity).flatMap(owner.get).find(_ != t).headOption
      val cycles = dump.threads.flatMap { start =>
        val path = Iterator.iterate(Option(start))(_.flatMap(next)).takeWhile(_.isDefined).flatten.take(64).toVector
        val again = path.indexWhere(_ == start, 1)
        Option.when(again > 0)(path.take(again).map(_.name))
      }
      cycles.map(_.sorted).distinct
