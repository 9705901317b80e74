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
    // The host pool's wait queue holds as many calls as it has connections: each client of the peer has one call at a
    // time, and the queue counts the connections being opened beside the calls waiting, so a shorter queue refuses
    // (503) whenever the calls outnumber the free connections for a moment, e.g. 2,000 clients reconnecting while the
    // 2,000 calls of the clients before them are still at a 1 s third party; each refused client asks again at once
    // and is refused again until connections free. So at most 2 x --soap-max-connections calls are held (4,096 by
    // default; bulkhead admits 4,000 into its pipeline), each waiting at most the call's 3 s timeout, which covers
    // getting a connection (then 504); a call beyond them gets 503 at once.
    WebClient soap = WebClient.create(vertx,
        new WebClientOptions().setConnectTimeout(2000).setKeepAlive(true).setIdleTimeout(60)
            .setUserAgentEnabled(false),
        new PoolOptions().setHttp1MaxSize(options.soapMaxConnections)
            .setMaxWaitQueueSize(options.soapMaxConnections));
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
