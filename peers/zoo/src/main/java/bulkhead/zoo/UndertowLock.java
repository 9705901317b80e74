package bulkhead.zoo;

import java.util.concurrent.locks.ReentrantLock;

/**
 * Undertow whose `/work` holds one lock for --hold-ms on a worker thread: a monitor (`synchronized`, app
 * `undertow-lock`) or a `ReentrantLock` (app `undertow-reentrant`). The lock caps it: one holder at a time, so by
 * Little's law at most 1 / hold requests per second (100 req/s at the default 10 ms), however many of the
 * --worker-threads queue on it. A monitor's waiters are BLOCKED; a ReentrantLock's are WAITING, parked in its queue.
 */
final class UndertowLock implements ZooApp {
  private final Object monitor = new Object();
  private final ReentrantLock lock = new ReentrantLock();
  private final boolean reentrant;
  private final int ioThreads;
  private final int workerThreads;
  private final int holdMs;

  UndertowLock(ZooFlags flags, boolean reentrant) {
    this.reentrant = reentrant;
    ioThreads = flags.number("--io-threads", 2, 1, 1024);
    workerThreads = flags.number("--worker-threads", 64, 1, 32768);
    holdMs = flags.number("--hold-ms", 10, 0, 60_000);
  }

  @Override
  public int start(int port) {
    return UndertowServer.start(port, ioThreads, workerThreads, UndertowServer.dispatched(() -> {
      if (reentrant) {
        lock.lock();
        try {
          Thread.sleep(holdMs);
        } finally {
          lock.unlock();
        }
      } else {
        synchronized (monitor) {
          Thread.sleep(holdMs);
        }
      }
    }));
  }
}
