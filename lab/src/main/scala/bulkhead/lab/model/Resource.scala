package bulkhead.lab.model

/** What can cap a service's throughput, in the order the lab considers them (Little's law on each). */
enum Resource(val key: String):
  /** A pool whose threads are held by requests (blocking work): size / hold time. */
  case Pool extends Resource("pool")
  /** Threads of an event loop (a selector's) held by blocking code: loops / hold, and never fixed by more loops. */
  case EventLoop extends Resource("event-loop")
  /** A monitor or an exclusive lock: one holder at a time, so 1 / hold; found from threads queued on it. */
  case Lock extends Resource("lock")
  /** A `java.util.concurrent.Semaphore`: permits / hold. */
  case Semaphore extends Resource("semaphore")
  /** A pool of connections borrowed by threads that then wait on a socket (JDBC, HTTP clients): size / hold. */
  case ConnectionPool extends Resource("connection-pool")
  /**
   * A bounded set of objects lent and returned (a borrow, acquire, lease or take in a library's pool) whose holders do
   * something else than read a socket on them: size / hold.
   */
  case ObjectPool extends Resource("object-pool")
  /** Any other bounded resource threads queue for and hold (a bounded hand-off, a limit in front of a pool). */
  case Limit extends Resource("limit")
  /** The SOAP client's connections to the third party, one call on each at a time: connections / call time. */
  case HostPool extends Resource("soap-host-pool")
  /** The server's `max-connections`: connections served at once / time a connection holds its slot per request. */
  case MaxConnections extends Resource("max-connections")
  /** The CPU of the machine (2 cores here, shared by the service and the load generator): cores / CPU per request. */
  case Cpu extends Resource("cpu")
  /** The third party's latency: the clients' in-flight calls / its latency. */
  case ThirdParty extends Resource("third-party")
  /**
   * What the threads that serve the requests wait on when nothing in front of it limits them (the work's own sleep, a
   * completion no thread of the JVM runs): the clients' in-flight requests / its time; a higher rate finds the cap.
   */
  case Wait extends Resource("wait")
  /** The load generator's own concurrency: clients / latency (a closed loop serves exactly what it offers). */
  case LoadGenerator extends Resource("load-generator")
  /** Answers that are not the expected ones: errors are never throughput, and are named first. */
  case Errors extends Resource("errors")
