package bulkhead.lab.sample

/**
 * Resources read from one thread dump by what its threads wait on. Threads queued alike (the same kind, class waited
 * on and site: [[ResourceSample.key]]) are the waiters of one resource. Its holders are found in the same dump: the
 * owner of the monitor or lock they wait for where the dump names it (`- locked`, `Locked ownable synchronizers`),
 * else the busy threads that run the frame where the waiters asked for it without waiting there: walking down the
 * waiters' stack from the site, the first frame outside the JDK that other busy threads also run is where waiters and
 * holders part (a JDBC pool's borrow, `HikariPool.getConnection`, is called from the application's query method,
 * which the threads holding a connection also run). Frames every idle thread runs (a pool's own loop) never part them.
 *
 * A parked wait with neither an owner nor a thread inside waits for a completion (a future, a promise, a latch): its
 * completers are looked for in other pools, by the classes of the waiters' code near the wait (the class that hands
 * an executor a task and waits on its future also wrote the task), and the pools that run the future's library are
 * named (an asynchronous client's event loop completes its futures without a thread per call).
 */
object WaitGraph:
  /** Each thread's pool label and what it waits on. */
  final case class Seen(thread: DumpedThread, pool: String, waiting: ThreadWait):
    lazy val methods: Seq[String] = thread.frames.map(ThreadWait.method)
    lazy val methodSet: Set[String] = methods.toSet
    /** The classes its code outside the JDK is written in (outer classes: a lambda's or an inner class's own). */
    lazy val classes: Set[String] = methods.filterNot(ThreadWait.jdk).map(ThreadWait.outerClassOf).toSet

  /** The most frames of a resource's own code kept per sample. */
  val MaxThrough = 12

  /** Fewer package names than this do not name a library (`bulkhead.zoo`, `org.apache.hc`). */
  private val LibraryDepth = 3

  def of(dump: ThreadDump): Seq[ResourceSample] = resources(seen(dump))

  /** Every thread with a Java state, its pool as [[ThreadDump.byPool]] labels it, and its wait. */
  def seen(dump: ThreadDump): Seq[Seen] =
    ThreadDump(dump.threads.filter(_.state != "UNKNOWN"), dump.deadlocks).byPool.toSeq.flatMap((pool, ts) =>
      ts.map(t => Seen(t, pool, t.waiting)))

  /** The holders of one resource as found, where waiters and holders part, and the resource's frames between. */
  private final case class Found(caller: Option[String], held: Seq[Seen], through: Seq[String] = Nil,
      completion: Boolean = false, completedBy: Map[String, Int] = Map.empty)

  def resources(all: Seq[Seen]): Seq[ResourceSample] =
    val busy = all.filterNot(_.waiting.kind == WaitKind.Idle)
    val idleMethods = all.filter(_.waiting.kind == WaitKind.Idle).flatMap(_.methods).toSet
    val groups = busy.filter(_.waiting.queued).groupBy(s => ResourceSample.key(s.waiting))
    val found = groups.map((key, waiters) => key -> holders(key, waiters, busy, all, idleMethods))
    // A holder's own wait, by the key of the resource it queues on next when it does.
    def next(s: Seen): String = if s.waiting.queued then ResourceSample.key(s.waiting) else s.waiting.kind.key
    groups.toSeq.sortBy(_._1).map { (key, waiters) =>
      val f = found(key)
      val held = f.held
      val w = waiters.head.waiting
      ResourceSample(key, w.kind.key, w.blocker.getOrElse("-"), w.site.getOrElse("-"), waiters.size,
        count(waiters.map(_.pool)), held.size, count(held.map(_.pool)), count(held.map(next)), f.caller,
        mostCommon(held.flatMap(_.waiting.site)), f.completion, f.completedBy, f.through)
    }

  /** The threads inside the resource the `waiters` wait for, and the frame where they part from the waiters. */
  private def holders(key: String, waiters: Seq[Seen], busy: Seq[Seen], all: Seq[Seen],
      idleMethods: Set[String]): Found =
    val waiting = waiters.map(_.thread).toSet
    val others = busy.filterNot(s => waiting(s.thread))
    val identities = waiters.flatMap(s => s.thread.blockedOn.map(ThreadWait.identityOf) ++ s.thread.waitingOnIdentity).toSet
    val owners = others.filter(_.thread.holds.exists(identities))
    if owners.nonEmpty then Found(None, owners)
    else
      val first = waiters.head
      val below = first.methods.dropWhile(m => !first.waiting.site.contains(m))
      below.iterator.filterNot(ThreadWait.jdk).takeWhile(m => !idleMethods(m))
        .map(m => m -> others.filter(_.methodSet(m))).find(_._2.nonEmpty) match
        case Some((m, held)) =>
          Found(Some(m), held, below.takeWhile(_ != m).filterNot(ThreadWait.jdk).take(MaxThrough))
        case None if first.waiting.kind == WaitKind.Parked && below.exists(m => !ThreadWait.jdk(m)) =>
          completion(key, waiters, first.methods, below.filterNot(ThreadWait.jdk), all)
        case None => Found(None, Nil)

  /** The JDK's raw parking: a library's own future or queue parks through these, a JDK future above them. */
  private val RawParking = Seq("java.util.concurrent.locks.", "jdk.internal.misc.Unsafe.", "sun.misc.Unsafe.",
    "java.lang.Object.wait")

  /**
   * A wait for a completion: the waiters' code near the wait (`below`, from the site), its completers in other pools
   * (busy threads that run a class of the code that asked, nearest first), and the pools whose threads run the
   * future's library. The site is the code that asked when it called the JDK's own future, latch or queue
   * (`CompletableFuture.get`); when it parks through the JDK's raw locks it is a library's future
   * (`org.apache.hc.core5.concurrent.BasicFuture.get`), and the code that asked is the first frame outside that library.
   */
  private def completion(key: String, waiters: Seq[Seen], frames: Seq[String], below: Seq[String],
      all: Seq[Seen]): Found =
    val site = below.head
    val jdkFuture = frames.takeWhile(_ != site).lastOption.exists(m => !RawParking.exists(m.startsWith))
    val (library, asking) = if jdkFuture then (Nil, below) else below.span(sameLibrary(_, site))
    val near = (library ++ asking.take(if jdkFuture then 2 else 1)).take(MaxThrough)
    val pools = waiters.map(_.pool).toSet
    val candidates = all.filterNot(s => pools(s.pool) || (s.waiting.queued && ResourceSample.key(s.waiting) == key))
    val working = candidates.filterNot(_.waiting.kind == WaitKind.Idle)
    // The future's own classes are run by waiters and completers alike: the code that asked tells them apart.
    val completers = asking.take(2).map(ThreadWait.outerClassOf).distinct.iterator
      .map(c => working.filter(_.classes(c))).find(_.nonEmpty).getOrElse(Nil)
    val runningLibrary = if library.isEmpty then Nil
      else candidates.filter(_.methods.exists(m => !ThreadWait.jdk(m) && sameLibrary(m, site)))
    Found(asking.headOption.orElse(library.lastOption), completers, near, completion = true,
      completedBy = count(runningLibrary.map(_.pool)))

  /**
   * Two frames of one library: their packages share their first three names (`org.apache.hc.core5.concurrent` and
   * `org.apache.hc.core5.reactor`), or all of the shorter one's when it has fewer (`scala.concurrent` and
   * `scala.concurrent.impl`).
   */
  def sameLibrary(a: String, b: String): Boolean =
    val (pa, pb) = (ThreadWait.packageOf(a).split('.'), ThreadWait.packageOf(b).split('.'))
    val need = LibraryDepth.min(pa.length).min(pb.length).max(1)
    pa.take(need).sameElements(pb.take(need))

  private def count(xs: Seq[String]): Map[String, Int] = xs.groupMapReduce(identity)(_ => 1)(_ + _)

  private def mostCommon(xs: Seq[String]): Option[String] =
    xs.groupMapReduce(identity)(_ => 1)(_ + _).maxByOption(_._2).map(_._1)
