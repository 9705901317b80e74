package bulkhead.zoo;

/**
 * Undertow whose `/work` sleeps --hold-ms on the IO thread that read it, never dispatched to the worker pool: the
 * anti-pattern of blocking an event loop. The --io-threads cap it: each serves its connections one sleep at a time, so
 * by Little's law at most io-threads / hold requests per second (2 / 0.02 s = 100 req/s by default). `/hello` is
 * answered on the same IO threads without sleeping, so it waits behind the sleeps of its connection's thread.
 */
final class UndertowIoBlocked implements ZooApp {
  private final int ioThreads;
  private final int holdMs;

  UndertowIoBlocked(ZooFlags flags) {
    ioThreads = flags.number("--io-threads", 2, 1, 1024);
    holdMs = flags.number("--hold-ms", 20, 0, 60_000);
  }

  @Override
  public int start(int port) {
    return UndertowServer.start(port, ioThreads, 0, exchange -> {
      Thread.sleep(holdMs);
      UndertowServer.ok(exchange);
    });
  }
}
