package bulkhead.peers.vertx;

import bulkhead.peers.PeerOptions;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.PoolOptions;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisAPI;
import io.vertx.redis.client.RedisOptions;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * bulkhead's enrichment pipeline on Vert.x 5: one {@link CustomersVerticle} per event loop on one shared port, the SOAP
 * client's host pool and the Redis pool shared by all, each bounded like bulkhead's.
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws Exception {
    PipelineOptions options = PipelineOptions.parse(args);
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(options.eventLoops));
    WebClient soap = WebClient.create(vertx,
        new WebClientOptions().setConnectTimeout(2000).setKeepAlive(true).setIdleTimeout(60)
            .setUserAgentEnabled(false),
        new PoolOptions().setHttp1MaxSize(options.soapMaxConnections).setMaxWaitQueueSize(256));
    RedisAPI redis = RedisAPI.api(Redis.createClient(vertx, new RedisOptions().setConnectionString(options.redisUri)
        .setMaxPoolSize(options.redisConnections).setMaxPoolWaiting(4000)));
    CustomersVerticle.Dependencies dependencies =
        new CustomersVerticle.Dependencies(soap, options.soapEndpoint, redis);
    // A free port is asked for as -1, not 0: Vert.x shares a negative port's random pick among the instances, but
    // binds each 0 anew.
    int listenOn = options.port == 0 ? -1 : options.port;
    AtomicInteger bound = new AtomicInteger();
    try {
      vertx.deployVerticle(() -> new CustomersVerticle(listenOn, bound, dependencies),
              new DeploymentOptions().setInstances(options.eventLoops))
          .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      System.err.println(PipelineOptions.Program + ": cannot bind port " + options.port + ": " + e.getMessage());
      System.exit(1);
    }
    PeerOptions.announce(PipelineOptions.Program, options.portFile, bound.get());
  }
}
