package bulkhead.lab.model

/**
 * The kind of change a fix makes, by the kind of resource that caps: what a diagnosis case expects (`expect.fix`).
 * A queue on a lock is never fixed with more threads, nor a blocked event loop with more loops.
 */
enum FixKind(val key: String):
  /** A thread pool of one thread per in-flight request (clients x hold / hold). */
  case PoolSize extends FixKind("pool-size")
  /** A connection pool sized for the in-flight calls, if the dependency behind it can serve that many at once. */
  case ConnectionPoolSize extends FixKind("connection-pool-size")
  /** A lock's critical section shortened or split: one holder at a time caps at 1 / hold. */
  case CriticalSection extends FixKind("critical-section")
  /** A semaphore's permits (or another limit's size) raised, if what it protects can take it. */
  case LimitSize extends FixKind("limit-size")
  /** Blocking code moved off an event loop or a non-blocking dispatcher onto a bounded pool. */
  case MoveOffEventLoop extends FixKind("move-off-event-loop")
  /** The server's connection limit raised to one connection per client. */
  case MaxConnections extends FixKind("max-connections")
  /** A pooled object given back before the unrelated slow work its holders do with it borrowed (beside its size). */
  case ReleaseSooner extends FixKind("release-sooner")
  /** Less CPU per request (the hottest frames), or more cores: more threads never help a full CPU. */
  case CheaperWork extends FixKind("cheaper-work")
  /** More clients or a higher rate: the load did not fill the service, and the rate that would find its cap. */
  case MoreLoad extends FixKind("more-load")
  /** The failing answers made to succeed first (their cause, from the answers and the service's log). */
  case Failures extends FixKind("failures")

object FixKind:
  def parse(text: String): Either[String, FixKind] =
    values.find(_.key == text).toRight(s"unknown fix kind '$text', expected one of ${values.map(_.key).mkString(", ")}")
