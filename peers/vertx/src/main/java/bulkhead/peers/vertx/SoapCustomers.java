package bulkhead.peers.vertx;

import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.ConnectionPoolTooBusyException;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.WebClient;
import java.net.URI;
import java.util.concurrent.TimeoutException;

/**
 * SOAP 1.1 GetCustomer on the third party through Vert.x's WebClient, whose host pool (shared by every verticle) is
 * bounded: --soap-max-connections connections and as many calls waiting (Main), a 3 s timeout (bulkhead's
 * request-timeout) that covers the wait. One per verticle: its answer reader is the verticle's own.
 */
final class SoapCustomers {
  private static final String Envelope = "http://schemas.xmlsoap.org/soap/envelope/";
  private static final String Customers = "urn:bulkhead:customers";
  static final long TimeoutMs = 3000;

  private final WebClient client;
  private final URI endpoint;
  private final GetCustomerAnswer answers = new GetCustomerAnswer();

  SoapCustomers(WebClient client, String endpoint) {
    this.client = client;
    this.endpoint = URI.create(endpoint);
  }

  /** The customer, or a failed future holding the {@link Refusal} the client gets. */
  Future<Customer> getCustomer(int id) {
    HttpRequest<Buffer> request = client
        .post(endpoint.getPort(), endpoint.getHost(), endpoint.getRawPath())
        .putHeader("Content-Type", "text/xml; charset=utf-8")
        .putHeader("SOAPAction", "\"urn:bulkhead:customers/GetCustomer\"")
        .timeout(TimeoutMs);
    return request.sendBuffer(Buffer.buffer(body(id)))
        .recover(e -> Future.failedFuture(refusalOf(e)))
        .map(response -> {
          Buffer body = response.body();
          return answers.read(id, response.statusCode(), body == null ? new byte[0] : body.getBytes());
        });
  }

  private static String body(int id) {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?><soapenv:Envelope xmlns:soapenv=\"" + Envelope
        + "\" xmlns:cus=\"" + Customers + "\"><soapenv:Body><cus:GetCustomer><cus:customerId>" + id
        + "</cus:customerId></cus:GetCustomer></soapenv:Body></soapenv:Envelope>";
  }

  /** A transport failure as bulkhead answers it: 504 at the timeout, 503 when the pool is full, else 502. */
  private static Refusal refusalOf(Throwable e) {
    if (e instanceof TimeoutException) return new Refusal(504, "the third party did not answer in time");
    if (e instanceof ConnectionPoolTooBusyException) {
      return new Refusal(503, "the SOAP client's host pool is full");
    }
    return new Refusal(502, "the third party could not be reached");
  }

}
