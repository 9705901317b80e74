package bulkhead.zoo;

import java.util.concurrent.Semaphore;

/**
 * Undertow whose `/work` takes one of --permits permits of a `Semaphore` and holds it for --hold-ms on a worker
 * thread. The permits cap it: by Little's law at most permits / hold requests per second (4 / 0.1 s = 40 req/s by
 * default), the other workers parked in the semaphore's queue.
 */
final class UndertowSemaphore implements ZooApp {
  private final int ioThreads;
  private final int workerThreads;
  private final int holdMs;
  private final Semaphore permits;

  UndertowSemaphore(ZooFlags flags) {
    ioThreads = flags.number("--io-threads", 2, 1, 1024);
    workerThreads = flags.number("--worker-threads", 64, 1, 32768);
    permits = new Semaphore(flags.number("--permits", 4, 1, 32768));
    holdMs = flags.number("--hold-ms", 100, 0, 60_000);
  }

  @Override
  public int start(int port) {
    return UndertowServer.start(port, ioThreads, workerThreads, UndertowServer.dispatched(() -> {
      permits.acquire();
      try {
        Thread.sleep(holdMs);
      } finally {
        permits.release();
      }
    }));
  }
}
