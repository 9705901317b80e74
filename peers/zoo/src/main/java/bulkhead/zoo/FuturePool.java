package bulkhead.zoo;

import bulkhead.peers.PeerOptions;
import io.undertow.server.HttpServerExchange;
import io.undertow.server.handlers.BlockingHandler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Undertow whose `/work` hands the call to the third party (the SOAP stub at --soap-endpoint) to a bounded executor,
 * `Executors.newFixedThreadPool(--pool-size)` with the JDK's own thread names (`pool-N-thread-M`), and waits on the
 * `CompletableFuture` it returns: the request threads wait on a future that the executor's threads complete, each
 * blocked in the JDK HTTP client's `send` for the call. The executor's threads cap it: by Little's law at most
 * pool-size / call time requests per second (5 / 0.2 s = 25 req/s with the stub at 200 ms), well below the 100
 * --worker-threads.
 */
final class FuturePool implements ZooApp {
  private final int workerThreads;
  private final int poolSize;
  private final URI endpoint;

  FuturePool(ZooFlags flags) {
    workerThreads = flags.number("--worker-threads", 100, 1, 32768);
    poolSize = flags.number("--pool-size", 5, 1, 1000);
    if (flags.soapEndpoint.isEmpty()) PeerOptions.fail(ZooFlags.Program, "--soap-endpoint URL is required by future-pool");
    endpoint = URI.create(flags.soapEndpoint);
  }

  @Override
  public int start(int port) {
    ExecutorService calls = Executors.newFixedThreadPool(poolSize);
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5)).build();
    return UndertowServer.start(port, 2, workerThreads,
        new BlockingHandler(exchange -> call(client, calls, exchange)));
  }

  private void call(HttpClient client, ExecutorService calls, HttpServerExchange exchange)
      throws InterruptedException {
    CompletableFuture<String> answer = CompletableFuture.supplyAsync(() -> send(client), calls);
    try {
      String problem = answer.get(10, TimeUnit.SECONDS);
      if (problem == null) UndertowServer.ok(exchange);
      else SoapCall.badGateway(exchange, "third party failed", problem);
    } catch (ExecutionException | TimeoutException | CancellationException e) {
      answer.cancel(true);
      SoapCall.badGateway(exchange, "third party unreachable", e.toString());
    }
  }

  /**
   * The call itself, on an executor thread: what is wrong with its answer, null when right; a failed exchange fails
   * the future (the waiting request answers 502, unreachable).
   */
  private String send(HttpClient client) {
    HttpRequest post = HttpRequest.newBuilder(endpoint).timeout(Duration.ofSeconds(10))
        .header("SOAPAction", SoapCall.Action).header("Content-Type", "text/xml; charset=utf-8")
        .POST(HttpRequest.BodyPublishers.ofString(SoapCall.GetCustomer42)).build();
    try {
      HttpResponse<String> response = client.send(post, HttpResponse.BodyHandlers.ofString());
      return SoapCall.problem(response.statusCode(), response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CancellationException("interrupted");
    }
  }
}
