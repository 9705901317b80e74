package bulkhead.lab.sample

/**
 * Resources read from one thread dump by what its threads wait on. Threads queued alike (the same kind, class waited
 * on and site: [[ResourceSample.key]]) are the waiters of one resource. Its holders are found in the same dump: the
 * owner of the monitor or lock they wait for where the dump names it (`- locked`, `Locked ownable synchronizers`),
 * else the busy threads that run the frame where the waiters asked for it without waiting there: walking down the
 * waiters' stack from the site, the first frame outside the JDK that other busy threads also run is where waiters and
 * holders part (a JDBC pool's borrow, `HikariPool.getConnection`, is called from the application's query method,
 * which the threads holding a connection also run). Frames every idle thread runs (a pool's own loop) never part them.
 */
object WaitGraph:
  /** Each thread's pool label and what it waits on. */
  final case class Seen(thread: DumpedThread, pool: String, waiting: ThreadWait):
    lazy val methods: Seq[String] = thread.frames.map(ThreadWait.method)
    lazy val methodSet: Set[String] = methods.toSet

  def of(dump: ThreadDump): Seq[ResourceSample] = resources(seen(dump))

  /** Every thread with a Java state, its pool as [[ThreadDump.byPool]] labels it, and its wait. */
  def seen(dump: ThreadDump): Seq[Seen] =
    ThreadDump(dump.threads.filter(_.state != "UNKNOWN"), dump.deadlocks).byPool.toSeq.flatMap((pool, ts) =>
      ts.map(t => Seen(t, pool, t.waiting)))

  def resources(all: Seq[Seen]): Seq[ResourceSample] =
    val busy = all.filterNot(_.waiting.kind == WaitKind.Idle)
    val idleMethods = all.filter(_.waiting.kind == WaitKind.Idle).flatMap(_.methods).toSet
    val groups = busy.filter(_.waiting.queued).groupBy(s => ResourceSample.key(s.waiting))
    val holdersOf = groups.map((key, waiters) => key -> holders(waiters, busy, idleMethods))
    // A holder's own wait, by the key of the resource it queues on next when it does.
    def next(s: Seen): String = if s.waiting.queued then ResourceSample.key(s.waiting) else s.waiting.kind.key
    groups.toSeq.sortBy(_._1).map { (key, waiters) =>
      val (caller, held) = holdersOf(key)
      val w = waiters.head.waiting
      ResourceSample(key, w.kind.key, w.blocker.getOrElse("-"), w.site.getOrElse("-"), waiters.size,
        count(waiters.map(_.pool)), held.size, count(held.map(_.pool)), count(held.map(next)), caller,
        mostCommon(held.flatMap(_.waiting.site)))
    }

  /** The threads inside the resource the `waiters` wait for, and the frame where they part from the waiters. */
  private def holders(waiters: Seq[Seen], busy: Seq[Seen], idleMethods: Set[String]): (Option[String], Seq[Seen]) =
    val waiting = waiters.map(_.thread).toSet
    val others = busy.filterNot(s => waiting(s.thread))
    val identities = waiters.flatMap(s => s.thread.blockedOn.map(ThreadWait.identityOf) ++ s.thread.waitingOnIdentity).toSet
    val owners = others.filter(_.thread.holds.exists(identities))
    if owners.nonEmpty then (None, owners)
    else
      val below = waiters.head.methods.dropWhile(m => !waiters.head.waiting.site.contains(m))
      below.iterator.filterNot(ThreadWait.jdk).takeWhile(m => !idleMethods(m))
        .map(m => m -> others.filter(_.methodSet(m))).find(_._2.nonEmpty)
        .map((m, held) => (Some(m), held)).getOrElse((None, Nil))

  private def count(xs: Seq[String]): Map[String, Int] = xs.groupMapReduce(identity)(_ => 1)(_ + _)

  private def mostCommon(xs: Seq[String]): Option[String] =
    xs.groupMapReduce(identity)(_ => 1)(_ + _).maxByOption(_._2).map(_._1)
