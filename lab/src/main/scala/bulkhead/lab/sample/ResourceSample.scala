package bulkhead.lab.sample

/**
 * One resource inside the JVM at one instant, found from what threads wait on (not from a list of names): threads
 * queued on it (`waiters`, by pool) and the threads inside it (`holders`: a monitor's or lock's owner, or the threads
 * past the point where the waiters stopped), and what the holders themselves do (`holderWaits`: `cpu`, `sleep`,
 * `socket`, or the key of the resource they queue on next). `kind` is the waiters' [[WaitKind]] key (`monitor` or
 * `parked`), `blocker` the class of the object they wait on, `site` the first frame outside the JDK below the wait,
 * `caller` the frame where waiters and holders part (what the holders run inside), `holderFrame` where most holders
 * stand (their first frame outside the JDK).
 */
final case class ResourceSample(key: String, kind: String, blocker: String, site: String, waiters: Int,
    waiterPools: Map[String, Int], holders: Int, holderPools: Map[String, Int], holderWaits: Map[String, Int],
    caller: Option[String], holderFrame: Option[String])

object ResourceSample:
  /** The key of a wait: kind, the class waited on, and the site (waits alike in all three are one resource). */
  def key(w: ThreadWait): String =
    s"${w.kind.key} ${w.blocker.getOrElse("-")} at ${w.site.getOrElse("-")}"
