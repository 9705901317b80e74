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
  /** Any other bounded resource threads queue for and hold (an object pool): size / hold. */
  case Limit extends Resource("limit")
  /** The SOAP client's connections to the third party (Pekko HTTP's host pool): connections / call time. */
  case HostPool extends Resource("soap-host-pool")
  /** The server's `max-connections`: connections served at once / time a connection holds its slot per request. */
  case MaxConnections extends Resource("max-connections")
  /** The CPU of the machine (2 cores here, shared by the service and the load generator): cores / CPU per request. */
  case Cpu extends Resource("cpu")
  /** The third party's latency: the clients' in-flight calls / its latency. */
  case ThirdParty extends Resource("third-party")
  /** The load generator's own concurrency: clients / latency (a closed loop serves exactly what it offers). */
  case LoadGenerator extends Resource("load-generator")
  /** Answers that are not the expected ones: errors are never throughput, and are named first. */
  case Errors extends Resource("errors")
