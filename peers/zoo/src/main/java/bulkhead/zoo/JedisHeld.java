package bulkhead.zoo;

import bulkhead.peers.JsonError;
import bulkhead.peers.PeerOptions;
import io.undertow.server.HttpServerExchange;
import io.undertow.server.handlers.BlockingHandler;
import io.undertow.util.Headers;
import io.undertow.util.StatusCodes;
import java.net.URI;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.JedisPoolConfig;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Undertow whose `/work` borrows a connection from a Jedis pool (Apache Commons Pool 2 underneath, --pool-size
 * objects: `maxTotal`, 8 by default as in Jedis), reads a key of Redis (at --redis-uri), then sleeps --hold-ms with the
 * connection still borrowed before it gives it back: the anti-pattern of holding a pooled object across unrelated slow
 * work. The pool caps it: by Little's law at most pool-size / hold requests per second (8 / 0.05 s = 160 req/s by
 * default), the other workers waiting to borrow.
 */
final class JedisHeld implements ZooApp {
  private final int workerThreads;
  private final int poolSize;
  private final int holdMs;
  private final URI redis;

  JedisHeld(ZooFlags flags) {
    workerThreads = flags.number("--worker-threads", 64, 1, 32768);
    poolSize = flags.number("--pool-size", 8, 1, 1000);
    holdMs = flags.number("--hold-ms", 50, 0, 60_000);
    if (flags.redisUri.isEmpty()) PeerOptions.fail(ZooFlags.Program, "--redis-uri URI is required by jedis-held");
    redis = URI.create(flags.redisUri);
  }

  @Override
  public int start(int port) {
    JedisPoolConfig config = new JedisPoolConfig();
    // Fixed size, as the pool the resource stands for: no idle shrinking while the lab samples it.
    config.setMaxTotal(poolSize);
    config.setMaxIdle(poolSize);
    config.setMinIdle(poolSize);
    JedisPool pool = new JedisPool(config, redis.getHost(), redis.getPort());
    try (Jedis jedis = pool.getResource()) {
      jedis.ping();
    }
    return UndertowServer.start(port, 2, workerThreads, new BlockingHandler(exchange -> work(pool, exchange)));
  }

  private void work(JedisPool pool, HttpServerExchange exchange) throws InterruptedException {
    try (Jedis jedis = pool.getResource()) {
      jedis.get("zoo:visits");
      // The slow work done with the connection still borrowed: it needs none of it.
      Thread.sleep(holdMs);
      UndertowServer.ok(exchange);
    } catch (JedisException e) {
      exchange.setStatusCode(StatusCodes.BAD_GATEWAY);
      exchange.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/json");
      exchange.getResponseSender().send(JsonError.body("redis failed", e.toString()));
    }
  }
}
