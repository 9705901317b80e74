package bulkhead.peers.vertx;

import io.vertx.core.AbstractVerticle;
import io.vertx.core.Promise;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One event loop's server: `GET /hello` and `GET /customers/:id` (SOAP GetCustomer, then the loyalty profile, merged
 * JSON) on Vert.x Web. Every instance listens on the same port, which Vert.x shares among them; a failed lookup ends in
 * the router's failure handler, which answers bulkhead's status and JSON.
 */
final class CustomersVerticle extends AbstractVerticle {
  private final int port;
  private final AtomicInteger bound;
  private final Dependencies dependencies;

  /** What every instance calls: the shared, bounded clients. */
  record Dependencies(io.vertx.ext.web.client.WebClient soap, String soapEndpoint, io.vertx.redis.client.RedisAPI redis) {}

  private SoapCustomers soap;
  private LoyaltyProfiles profiles;

  CustomersVerticle(int port, AtomicInteger bound, Dependencies dependencies) {
    this.port = port;
    this.bound = bound;
    this.dependencies = dependencies;
  }

  @Override
  public void start(Promise<Void> started) {
    soap = new SoapCustomers(dependencies.soap(), dependencies.soapEndpoint());
    profiles = new LoyaltyProfiles(dependencies.redis());
    Router router = Router.router(vertx);
    router.get("/hello").handler(ctx ->
        ctx.response().putHeader("Content-Type", "text/plain; charset=UTF-8").end("OK"));
    router.get("/customers/:id").handler(this::customer);
    router.route().failureHandler(CustomersVerticle::refused);
    router.errorHandler(404, ctx -> error(ctx.response(), 404, "The requested resource could not be found."));
    vertx.createHttpServer().requestHandler(router).listen(port, "127.0.0.1")
        .onSuccess(server -> {
          bound.set(server.actualPort());
          started.complete();
        })
        .onFailure(started::fail);
  }

  private void customer(RoutingContext ctx) {
    int id;
    try {
      id = CustomerId.parse(ctx.pathParam("id"));
    } catch (Refusal r) {
      ctx.fail(r);
      return;
    }
    soap.getCustomer(id)
        .compose(customer -> profiles.loyalty(id).map(loyalty -> CustomerJson.answer(customer, loyalty)))
        .onSuccess(ctx::json)
        .onFailure(ctx::fail);
  }

  /** A {@link Refusal} as bulkhead answers it; anything else is a bug: 500, its class and message to the log only. */
  private static void refused(RoutingContext ctx) {
    Throwable failure = ctx.failure();
    HttpServerResponse response = ctx.response();
    if (failure instanceof Refusal r) {
      if (r.status == 503) response.putHeader("Retry-After", "1");
      error(response, r.status, r.getMessage());
    } else {
      if (failure != null) System.err.println(PipelineOptions.Program + ": " + failure);
      int status = failure == null ? ctx.statusCode() : 500;
      error(response, status, status == 500 ? "the request could not be served" : "");
    }
  }

  private static void error(HttpServerResponse response, int status, String detail) {
    response.setStatusCode(status).putHeader("Content-Type", "application/json")
        .end(CustomerJson.error(response.getStatusMessage(), detail).encode());
  }
}
