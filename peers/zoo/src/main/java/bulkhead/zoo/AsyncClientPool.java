package bulkhead.zoo;

import bulkhead.peers.PeerOptions;
import io.undertow.server.HttpServerExchange;
import io.undertow.server.handlers.BlockingHandler;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.hc.client5.http.async.methods.SimpleHttpRequest;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManager;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.reactor.IOReactorConfig;

/**
 * Undertow whose `/work` calls the third party (the SOAP stub at --soap-endpoint) through an asynchronous client,
 * Apache HttpAsyncClient 5, and waits on the returned future on its worker thread: the request threads wait on a
 * future that the client's I/O reactor completes, a non-blocking event loop that holds no thread per call. The
 * client's pool of --max-connections connections per route caps it: at most that many calls are in flight, the others
 * wait inside the client for a connection, so by Little's law at most connections / call time requests per second
 * (5 / 0.2 s = 25 req/s with the stub at 200 ms), well below the 100 --worker-threads.
 */
final class AsyncClientPool implements ZooApp {
  private final int workerThreads;
  private final int maxConnections;
  private final String endpoint;

  AsyncClientPool(ZooFlags flags) {
    workerThreads = flags.number("--worker-threads", 100, 1, 32768);
    maxConnections = flags.number("--max-connections", 5, 1, 32768);
    endpoint = flags.soapEndpoint;
    if (endpoint.isEmpty()) PeerOptions.fail(ZooFlags.Program, "--soap-endpoint URL is required by async-client");
  }

  @Override
  public int start(int port) {
    PoolingAsyncClientConnectionManager pool = PoolingAsyncClientConnectionManagerBuilder.create()
        .setMaxConnTotal(maxConnections).setMaxConnPerRoute(maxConnections).build();
    CloseableHttpAsyncClient client = HttpAsyncClients.custom().setConnectionManager(pool)
        .setIOReactorConfig(IOReactorConfig.custom().setIoThreadCount(2).build()).build();
    client.start();
    return UndertowServer.start(port, 2, workerThreads, new BlockingHandler(exchange -> call(client, exchange)));
  }

  private void call(CloseableHttpAsyncClient client, HttpServerExchange exchange) throws InterruptedException {
    SimpleHttpRequest post = SimpleRequestBuilder.post(endpoint)
        .setHeader("SOAPAction", SoapCall.Action)
        .setBody(SoapCall.GetCustomer42, ContentType.create("text/xml", StandardCharsets.UTF_8)).build();
    Future<SimpleHttpResponse> answer = client.execute(post, null);
    try {
      SimpleHttpResponse response = answer.get(10, TimeUnit.SECONDS);
      String problem = SoapCall.problem(response.getCode(), response.getBodyText());
      if (problem == null) UndertowServer.ok(exchange);
      else SoapCall.badGateway(exchange, "third party failed", problem);
    } catch (ExecutionException | TimeoutException e) {
      answer.cancel(true);
      SoapCall.badGateway(exchange, "third party unreachable", e.toString());
    }
  }
}
