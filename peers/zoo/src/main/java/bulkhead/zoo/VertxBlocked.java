package bulkhead.zoo;

import io.vertx.core.AbstractVerticle;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpServerRequest;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Vert.x HTTP server whose `/work` sleeps --hold-ms on the event loop that read it: the anti-pattern Vert.x's own
 * blocked-thread checker warns about. The --event-loops cap it: one server verticle per loop, each loop serving its
 * connections one sleep at a time, so by Little's law at most event-loops / hold requests per second (2 / 0.05 s = 40
 * req/s by default).
 */
final class VertxBlocked implements ZooApp {
  private final int eventLoops;
  private final int holdMs;

  VertxBlocked(ZooFlags flags) {
    eventLoops = flags.number("--event-loops", 2, 1, 1024);
    holdMs = flags.number("--hold-ms", 50, 0, 60_000);
  }

  @Override
  public int start(int port) throws Exception {
    // Blocking the loops is the point here. With a --hold-ms over the checker's 2 s limit it would log a warning every
    // second (with a stack trace past 5 s): work inside the measured run and noise in the log. Checked hourly instead.
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(eventLoops)
        .setBlockedThreadCheckInterval(1).setBlockedThreadCheckIntervalUnit(TimeUnit.HOURS));
    // One verticle per loop, all on one port, which Vert.x shares among them, handing connections to each loop in
    // turn. A free port is asked for as -1, not 0: Vert.x shares a negative port's random pick, but binds each 0 anew.
    int listenOn = port == 0 ? -1 : port;
    AtomicInteger bound = new AtomicInteger();
    vertx.deployVerticle(() -> new Loop(listenOn, holdMs, bound), new DeploymentOptions().setInstances(eventLoops))
        .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    return bound.get();
  }

  /** One server verticle: its own event loop, `/hello` and the sleeping `/work`. */
  private static final class Loop extends AbstractVerticle {
    private final int port;
    private final int holdMs;
    private final AtomicInteger bound;

    Loop(int port, int holdMs, AtomicInteger bound) {
      this.port = port;
      this.holdMs = holdMs;
      this.bound = bound;
    }

    @Override
    public void start(Promise<Void> started) {
      vertx.createHttpServer().requestHandler(this::handle).listen(port, "127.0.0.1")
          .onSuccess(server -> {
            bound.set(server.actualPort());
            started.complete();
          })
          .onFailure(started::fail);
    }

    private void handle(HttpServerRequest request) {
      switch (request.path()) {
        case "/hello":
          ok(request);
          break;
        case "/work":
          try {
            Thread.sleep(holdMs);
            ok(request);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            request.response().setStatusCode(500).end();
          }
          break;
        default:
          request.response().setStatusCode(404).end();
      }
    }

    private static void ok(HttpServerRequest request) {
      request.response().putHeader("Content-Type", "text/plain; charset=utf-8").end("OK");
    }
  }
}
