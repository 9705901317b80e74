package bulkhead.peers.vertx;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.redis.client.RedisAPI;
import io.vertx.redis.client.Response;
import java.util.concurrent.TimeUnit;

/**
 * The loyalty part of an answer, from Redis hash `customer:{id}` through Vert.x's Redis client (a pool of
 * --redis-connections, bulkhead's 20): the profile, `{"available":true}` for a customer without one, and
 * `{"available":false}` when Redis could not be read within 1 s (bulkhead's redis.timeout): the answer is degraded,
 * never failed.
 */
final class LoyaltyProfiles {
  static final long TimeoutMs = 1000;

  private final RedisAPI redis;

  LoyaltyProfiles(RedisAPI redis) {
    this.redis = redis;
  }

  Future<JsonObject> loyalty(int id) {
    return redis.hgetall("customer:" + id)
        .timeout(TimeoutMs, TimeUnit.MILLISECONDS)
        .map(LoyaltyProfiles::read)
        .otherwise(e -> new JsonObject().put("available", false));
  }

  /** A hash with the three fields (points a number) is a profile; anything else a customer without one. */
  static JsonObject read(Response hash) {
    JsonObject loyalty = new JsonObject().put("available", true);
    if (hash == null) return loyalty;
    Response points = hash.get("points");
    Response tier = hash.get("tier");
    Response lastOrder = hash.get("lastOrder");
    if (points == null || tier == null || lastOrder == null) return loyalty;
    long p;
    try {
      p = Long.parseLong(points.toString());
    } catch (NumberFormatException e) {
      return loyalty;
    }
    return loyalty.put("points", p).put("tier", tier.toString()).put("lastOrder", lastOrder.toString());
  }
}
