package bulkhead.zoo;

import io.undertow.Handlers;
import io.undertow.Undertow;
import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.server.handlers.BlockingHandler;
import io.undertow.util.Headers;
import io.undertow.util.StatusCodes;
import java.net.InetSocketAddress;

/**
 * An Undertow server on 127.0.0.1 with its two XNIO pools sized by the app: `/hello` answered on the IO thread that
 * read it, `/work` by the app's handler. Undertow's own thread names (`XNIO-1 I/O-n`, `XNIO-1 task-n`) are kept: the
 * lab must recognise pools nobody named for it.
 */
final class UndertowServer {
  private UndertowServer() {}

  /** Serves `work` on the worker pool: the IO thread hands it over and returns to its other connections. */
  static HttpHandler dispatched(Blocking work) {
    return new BlockingHandler(exchange -> {
      work.run();
      ok(exchange);
    });
  }

  /** Starts it; the bound port. `workerThreads` 0 keeps Undertow's default worker pool. */
  static int start(int port, int ioThreads, int workerThreads, HttpHandler work) {
    Undertow.Builder builder = Undertow.builder()
        .addHttpListener(port, "127.0.0.1")
        .setIoThreads(ioThreads)
        .setHandler(Handlers.path().addExactPath("/hello", UndertowServer::ok).addExactPath("/work", work));
    if (workerThreads > 0) builder.setWorkerThreads(workerThreads);
    Undertow server = builder.build();
    server.start();
    return ((InetSocketAddress) server.getListenerInfo().get(0).getAddress()).getPort();
  }

  static void ok(HttpServerExchange exchange) {
    exchange.setStatusCode(StatusCodes.OK);
    exchange.getResponseHeaders().put(Headers.CONTENT_TYPE, "text/plain; charset=utf-8");
    exchange.getResponseSender().send("OK");
  }

  /** What a dispatched `/work` does before it answers `OK`. */
  @FunctionalInterface
  interface Blocking {
    void run() throws Exception;
  }
}
