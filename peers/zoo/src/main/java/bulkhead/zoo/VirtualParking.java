package bulkhead.zoo;

import io.undertow.server.HttpHandler;
import java.lang.reflect.Method;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Undertow whose `/work` runs on a virtual thread of its own (JDK 21+), named `request-N`, which sleeps --hold-ms in
 * --steps naps: each nap unmounts it and a timer mounts it again. Beside the requests, --parkers virtual threads
 * (`parker-N`) park --park-ms and unpark, forever: thousands of virtual threads mounting and unmounting under load,
 * the state in which a JDK 25 JSON thread dump can crash the JVM (JDK-8364343). Nothing caps it but the clients and
 * the CPU: by Little's law, clients / hold requests per second.
 */
final class VirtualParking implements ZooApp {
  private final int ioThreads;
  private final int holdMs;
  private final int steps;
  private final int parkers;
  private final int parkMs;

  VirtualParking(ZooFlags flags) {
    ioThreads = flags.number("--io-threads", 2, 1, 1024);
    holdMs = flags.number("--hold-ms", 100, 0, 60_000);
    steps = flags.number("--steps", 4, 1, 1000);
    parkers = flags.number("--parkers", 0, 0, 100_000);
    parkMs = flags.number("--park-ms", 10, 1, 60_000);
  }

  @Override
  public int start(int port) throws Exception {
    ExecutorService requests = perTask(virtualFactory("request-"));
    ThreadFactory parking = virtualFactory("parker-");
    for (int i = 0; i < parkers; i++) {
      parking.newThread(() -> {
        while (true) LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(parkMs));
      }).start();
    }
    HttpHandler work = exchange -> exchange.dispatch(requests, () -> {
      try {
        for (int i = 0; i < steps; i++) Thread.sleep(holdMs / steps);
        UndertowServer.ok(exchange);
      } catch (InterruptedException e) {
        exchange.setStatusCode(503).endExchange();
      }
    });
    return UndertowServer.start(port, ioThreads, 0, work);
  }

  /** `Thread.ofVirtual().name(prefix, 0).factory()`, through reflection: the zoo compiles for JDK 17. */
  private static ThreadFactory virtualFactory(String prefix) throws Exception {
    Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
    Method name = Class.forName("java.lang.Thread$Builder").getMethod("name", String.class, long.class);
    Object named = name.invoke(builder, prefix, 0L);
    return (ThreadFactory) Class.forName("java.lang.Thread$Builder").getMethod("factory").invoke(named);
  }

  /** `Executors.newThreadPerTaskExecutor(factory)` (JDK 21+). */
  private static ExecutorService perTask(ThreadFactory factory) throws Exception {
    return (ExecutorService) java.util.concurrent.Executors.class
        .getMethod("newThreadPerTaskExecutor", ThreadFactory.class).invoke(null, factory);
  }
}
