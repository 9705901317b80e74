package bulkhead.zoo;

import bulkhead.peers.JsonError;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import io.undertow.util.StatusCodes;

/**
 * The call the zoo's client apps make to the third party (the project's SOAP stub): SOAP 1.1 `GetCustomer` for
 * customer 42, how its answer is judged, and the 502 a request gets when it fails.
 */
final class SoapCall {
  private SoapCall() {}

  static final String Action = "\"urn:bulkhead:customers/GetCustomer\"";
  static final String GetCustomer42 = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
      + "<soapenv:Envelope xmlns:soapenv=\"http://schemas.xmlsoap.org/soap/envelope/\" "
      + "xmlns:cus=\"urn:bulkhead:customers\"><soapenv:Body><cus:GetCustomer><cus:customerId>42</cus:customerId>"
      + "</cus:GetCustomer></soapenv:Body></soapenv:Envelope>";

  /** What is wrong with an answer of `status` and `body`; null for a GetCustomerResponse. */
  static String problem(int status, String body) {
    if (status != 200) return "the third party answered HTTP " + status;
    return body != null && body.contains("GetCustomerResponse") ? null
        : "the third party's answer is not a GetCustomerResponse";
  }

  static void badGateway(HttpServerExchange exchange, String error, String detail) {
    exchange.setStatusCode(StatusCodes.BAD_GATEWAY);
    exchange.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/json");
    exchange.getResponseSender().send(JsonError.body(error, detail));
  }
}
