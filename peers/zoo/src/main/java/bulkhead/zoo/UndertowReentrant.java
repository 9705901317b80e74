package bulkhead.zoo;

import java.util.concurrent.locks.ReentrantLock;

/**
 * Undertow whose `/work` holds one `ReentrantLock` for --hold-ms on a worker thread. The lock caps it: one holder at a
 * time, so by Little's law at most 1 / hold requests per second (100 req/s at the default 10 ms). Unlike a monitor,
 * its waiters are WAITING (parked in the lock's queue), not BLOCKED.
 */
final class UndertowReentrant implements ZooApp {
  private final ReentrantLock lock = new ReentrantLock();
  private final int ioThreads;
  private final int workerThreads;
  private final int holdMs;

  UndertowReentrant(ZooFlags flags) {
    ioThreads = flags.number("--io-threads", 2, 1, 1024);
    workerThreads = flags.number("--worker-threads", 64, 1, 32768);
    holdMs = flags.number("--hold-ms", 10, 0, 60_000);
  }

  @Override
  public int start(int port) {
    return UndertowServer.start(port, ioThreads, workerThreads, UndertowServer.dispatched(() -> {
      lock.lock();
      try {
        Thread.sleep(holdMs);
      } finally {
        lock.unlock();
      }
    }));
  }
}
