package bulkhead.zoo;

import bulkhead.peers.PeerOptions;
import io.undertow.server.HttpServerExchange;
import io.undertow.server.handlers.BlockingHandler;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.StringEntity;

/**
 * Undertow whose `/work` calls the third party (the project's SOAP stub at --soap-endpoint) with SOAP 1.1 `GetCustomer`
 * for customer 42, on a worker thread, through an Apache HttpClient 5 classic client. Its pool of --max-connections
 * connections caps it: the other workers wait to lease one, so by Little's law at most connections / call time
 * requests per second (5 / 0.1 s = 50 req/s with the stub at 100 ms), well below the 100 --worker-threads.
 */
final class HttpClientPool implements ZooApp {
  private final int workerThreads;
  private final int maxConnections;
  private final String endpoint;

  HttpClientPool(ZooFlags flags) {
    workerThreads = flags.number("--worker-threads", 100, 1, 32768);
    maxConnections = flags.number("--max-connections", 5, 1, 32768);
    endpoint = flags.soapEndpoint;
    if (endpoint.isEmpty()) PeerOptions.fail(ZooFlags.Program, "--soap-endpoint URL is required by httpclient-pool");
  }

  @Override
  public int start(int port) {
    PoolingHttpClientConnectionManager pool = PoolingHttpClientConnectionManagerBuilder.create()
        .setMaxConnTotal(maxConnections).setMaxConnPerRoute(maxConnections).build();
    CloseableHttpClient client = HttpClients.custom().setConnectionManager(pool).build();
    return UndertowServer.start(port, 2, workerThreads, new BlockingHandler(exchange -> call(client, exchange)));
  }

  private void call(CloseableHttpClient client, HttpServerExchange exchange) {
    HttpPost post = new HttpPost(endpoint);
    post.setHeader("SOAPAction", SoapCall.Action);
    post.setEntity(new StringEntity(SoapCall.GetCustomer42, ContentType.create("text/xml", StandardCharsets.UTF_8)));
    try {
      String problem = client.execute(post, response -> {
        // Read whole either way: the connection goes back to the pool only once its answer is consumed.
        String body = EntityUtils.toString(response.getEntity(), StandardCharsets.UTF_8);
        return SoapCall.problem(response.getCode(), body);
      });
      if (problem == null) UndertowServer.ok(exchange);
      else SoapCall.badGateway(exchange, "third party failed", problem);
    } catch (IOException e) {
      SoapCall.badGateway(exchange, "third party unreachable", e.toString());
    }
  }
}
