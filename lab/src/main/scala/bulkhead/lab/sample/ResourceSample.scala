package bulkhead.lab.sample

/**
 * One resource inside the JVM at one instant, found from what threads wait on (not from a list of names): threads
 * queued on it (`waiters`, by pool) and the threads inside it (`holders`: a monitor's or lock's owner, or the threads
 * past the point where the waiters stopped), and what the holders themselves do (`holderWaits`: `cpu`, `sleep`,
 * `socket`, or the key of the resource they queue on next). `kind` is the waiters' [[WaitKind]] key (`monitor` or
 * `parked`), `blocker` the class of the object they wait on, `site` the first frame outside the JDK below the wait,
 * `caller` the frame where waiters and holders part (what the holders run inside), `holderFrame` where most holders
 * stand (their first frame outside the JDK). `through`: the frames outside the JDK from the site down to the caller,
 * the resource's own code as the waiters called it (a pool's `borrowObject`, `getResource`).
 *
 * A wait that no thread owns and no thread is inside (`completion`) is a wait for a result another thread hands over:
 * a future, a promise, a latch, a condition. Its `holders` are then the threads seen completing it: busy threads of
 * other pools that run the waiters' code near the wait (an executor's task of the class that waits on it); `caller`
 * is the waiters' own code that asked (the first frame below the wait outside the future's library) and `through`
 * the frames from the wait down to it; `completedBy` counts, by pool, the threads (busy or idle) that run the
 * future's library: an asynchronous client's event loop, which holds no thread per call.
 */
final case class ResourceSample(key: String, kind: String, blocker: String, site: String, waiters: Int,
    waiterPools: Map[String, Int], holders: Int, holderPools: Map[String, Int], holderWaits: Map[String, Int],
    caller: Option[String], holderFrame: Option[String], completion: Boolean = false,
    completedBy: Map[String, Int] = Map.empty, through: Seq[String] = Nil)

object ResourceSample:
  /** The key of a wait: kind, the class waited on, and the site (waits alike in all three are one resource). */
  def key(w: ThreadWait): String =
    s"${w.kind.key} ${w.blocker.getOrElse("-")} at ${w.site.getOrElse("-")}"
