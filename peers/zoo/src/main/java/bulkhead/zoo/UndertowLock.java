package bulkhead.zoo;

/**
 * Undertow whose `/work` holds one monitor (`synchronized`) for --hold-ms on a worker thread. The monitor caps it:
 * one holder at a time, so by Little's law at most 1 / hold requests per second (100 req/s at the default 10 ms),
 * however many of the --worker-threads wait BLOCKED on it.
 */
final class UndertowLock implements ZooApp {
  private static final Object Lock = new Object();
  private final int ioThreads;
  private final int workerThreads;
  private final int holdMs;

  UndertowLock(ZooFlags flags) {
    ioThreads = flags.number("--io-threads", 2, 1, 1024);
    workerThreads = flags.number("--worker-threads", 64, 1, 32768);
    holdMs = flags.number("--hold-ms", 10, 0, 60_000);
  }

  @Override
  public int start(int port) {
    return UndertowServer.start(port, ioThreads, workerThreads, UndertowServer.dispatched(() -> {
      synchronized (Lock) {
        Thread.sleep(holdMs);
      }
    }));
  }
}
