package bulkhead.lab.diagnose

import bulkhead.lab.diagnose.Measured.*
import bulkhead.lab.model.{FixKind, Resource}

/**
 * Threads parked on a completion: a future, a promise, a latch or a condition that another thread completes, with no
 * thread owning it and none inside it ([[bulkhead.lab.sample.WaitGraph]]). The wait leads to whoever completes it:
 *
 *  - completers seen (busy threads of another pool running the waiters' code: an executor's tasks): when their pool
 *    is full, that pool caps the requests (its size / the tasks' hold); when it has idle threads while the waiters
 *    wait, something in front of it lets only so many tasks run at once (a per-host or total limit of the library
 *    that dispatches them): a limit of the completers seen at once;
 *  - completers unseen (an asynchronous client's event loop completes its futures without a thread per call): the
 *    calls are in flight on the process's connections; fewer connections to the peer than waiting threads is the
 *    client's limit of connections per host (cap = connections / call time); as many is a remote call with nothing in
 *    front of it (the third party, not saturated), and without any connection a completion no thread of this JVM
 *    runs (a wait, not saturated).
 *
 * The chain goes request threads -> the future -> its completers -> their limit.
 */
object FutureReader extends WaitReader:
  val resource: Resource = Resource.Wait
  val unit = "calls"
  def claims(w: WaitResource): Boolean = w.completion

  /** A completion the requests wait on: at least this many threads on the mean, and this share of the clients. */
  private val Least = 2.0
  private val ClientShare = 0.1

  override def read(run: RunView): Seq[Measured] =
    val outbound = WaitResources.outbound(run)
    lazy val pools = ThreadPoolReader.measure(run.window, run.answeredRate)
    mine(run).filter(w => mean(w.waiters) >= Least.max(ClientShare * run.clients)).map { w =>
      w.holderPools.filter(_._2 >= 0.5).maxByOption(_._2).map(_._1) match
        case Some(completers) => byCompleters(w, completers, run, outbound, pools)
        case None => unseen(w, run, outbound)
    }

  /** The wait's first link: how many wait, where, and on what. */
  private def waiting(w: WaitResource): String =
    f"${mean(w.waiters)}%.1f threads wait on a completion at ${w.site}" + w.caller.filterNot(_ == w.site)
      .fold("")(c => s" (asked in $c)") + s" (${w.blocker}: a future, promise or latch another thread completes)"

  /** Completers seen in pool `p`: that pool when it is full, else a limit in front of it. */
  private def byCompleters(w: WaitResource, p: String, run: RunView, outbound: Map[String, Double],
      pools: Seq[Measured]): Measured =
    val seen = run.window.map(_.pools.find(_.pool == p))
    val threads = seen.flatten.map(_.threads).maxOption.getOrElse(0).toDouble
    val full = mostly(seen.map(_.exists(s => s.busy >= s.threads * Diagnosis.FullShare)))
    val doing = w.mostlyHolders.fold("")(h => s", they ${WaitResources.describe(h, outbound)}")
    val completedBy = f"completed by the threads of $p (${mean(w.holders)}%.1f busy running the task" +
      w.holderFrame.fold("")(f => s" in $f") + s")$doing"
    if full then
      pools.find(m => m.resource == Resource.Pool && (m.subject == p || p.endsWith(m.subject))) match
        case Some(pool) =>
          pool.copy(chain = Seq(waiting(w), completedBy) ++ pool.chain, key = Some(w.key),
            readBy = Some(ThreadPoolReader))
        case None =>
          val busy = mean(seen.map(_.fold(0.0)(_.busy.toDouble)))
          Measured(Resource.Pool, p, threads, busy, run.answeredRate, true, Some(mean(w.waiters)),
            f"$busy%.1f of $threads%.0f threads busy completing the futures waited on at ${w.site}",
            frame = w.holderFrame, key = Some(w.key), readBy = Some(ThreadPoolReader),
            chain = Seq(waiting(w), completedBy, f"$p: $busy%.1f of $threads%.0f threads busy"))
    else
      val m = w.measured(Resource.Limit, size(w), unit, run, outbound)
      val limit = f"a limit of ${m.size}%.0f calls at once in front of $p, which had idle threads while they waited " +
        "(a per-host or total limit of the code that hands it the calls)"
      m.copy(subject = w.caller.getOrElse(w.site), detail = s"${waiting(w)}; $completedBy; $limit",
        chain = Seq(waiting(w), completedBy, limit), frame = w.caller, readBy = Some(this))

  /** No completer seen: the calls in flight on the process's connections, and what limits them. */
  private def unseen(w: WaitResource, run: RunView, outbound: Map[String, Double]): Measured =
    val loops = w.completedBy.toSeq.sortBy(-_._2).map((p, n) => f"$p ($n%.0f threads)")
    val completer = if loops.isEmpty then "its completer runs in no thread of this JVM (another process, a remote call)"
      else s"completed by ${loops.mkString(", ")}, which run the future's library without a busy thread per call " +
        "(an event loop): the calls are in flight"
    val waiters = mean(w.waiters)
    outbound.maxByOption(_._2).filter(_._2 >= 1) match
      case Some((peer, _)) =>
        val connections = run.window.map(_.outbound.getOrElse(peer, 0).toDouble)
        val queued = w.samples.map(_.fold(0.0)(_.waiters.toDouble)).zip(connections).map((n, c) => n > c + 0.5)
        if mostly(queued) then
          val size = median(connections.zip(queued).collect { case (c, true) => c }).getOrElse(1.0).max(1)
          val hold = size / run.answeredRate
          val calls = f"calls in flight on ${size}%.0f connections to $peer: a remote call of ${fmt(hold)} s each, " +
            f"${size}%.0f at once; ${(waiters - size).max(0)}%.1f more wait in the client for a connection"
          Measured(Resource.ConnectionPool, w.site, size, size, run.answeredRate, true, Some((waiters - size).max(0)),
            s"${waiting(w)}; $completer; $calls", frame = w.caller, key = Some(w.key), readBy = Some(this),
            chain = Seq(waiting(w), completer, calls))
        else
          val hold = waiters / run.answeredRate
          val calls = f"waiting on a remote call to $peer: ${fmt(hold)} s each, $waiters%.1f at once (one connection " +
            "each: nothing in the service queues them)"
          Measured(Resource.ThirdParty, peer, waiters, waiters, run.answeredRate, false, Some(0.0),
            s"${waiting(w)}; $completer; $calls", frame = w.caller, key = Some(w.key), readBy = Some(this),
            chain = Seq(waiting(w), completer, calls))
      case None =>
        val hold = waiters / run.answeredRate
        val what = f"waiting on a completion: ${fmt(hold)} s each, $waiters%.1f at once"
        Measured(Resource.Wait, w.site, waiters, waiters, run.answeredRate, false, Some(0.0),
          s"${waiting(w)}; $completer; $what", frame = w.caller, key = Some(w.key), readBy = Some(this),
          chain = Seq(waiting(w), completer, what))

  /** The setting that sizes the client's connections or limit, where the future's library names one. */
  private def named(m: Measured, run: RunView): Option[String] =
    val w = WaitResources.of(run).find(x => m.key.contains(x.key))
    val libraries = w.toSeq.flatMap(x => (x.site +: x.through).map(PoolLibrary.libraryOf))
    val known = libraries.flatMap(PoolLibrary.settingOf).headOption
    // A Scala future of a Pekko or Akka service (its dispatchers are named after their configuration path).
    def runs(system: String) = run.window.exists(_.pools.exists(_.pool.contains(s"$system.actor.")))
    val actors = Seq("pekko" -> "org.apache.pekko.http", "akka" -> "akka.http").collectFirst {
      case (system, library) if libraries.exists(_.startsWith("scala.concurrent")) && runs(system) =>
        s"if it is $system's HTTP client: ${PoolLibrary.settingOf(library).get}"
    }
    known.orElse(actors)

  private def setting(m: Measured, run: RunView): String = named(m, run).fold("")(s => s" ($s)")

  def fix(m: Measured, run: RunView): Option[Fix] =
    val n = ResourceReader.inFlight(m, run)
    m.resource match
      case Resource.ConnectionPool =>
        Some(Fix(Nil, s"the asynchronous client's connections per host >= $n${setting(m, run)} " +
          s"(${ResourceReader.because(m, run)}); the peer behind them must serve $n calls at once",
          FixKind.ConnectionPoolSize, setting = named(m, run), value = Some(n)))
      case Resource.Limit =>
        Some(Fix(Nil, s"the limit of ${m.size.round} calls at once that the code asking in ${m.subject} runs >= $n" +
          s"${setting(m, run)} (${ResourceReader.because(m, run)}), if what the calls reach can serve $n at once",
          FixKind.LimitSize, setting = named(m, run), value = Some(n)))
      case _ => None
