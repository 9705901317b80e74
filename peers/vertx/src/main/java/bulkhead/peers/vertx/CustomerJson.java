package bulkhead.peers.vertx;

import io.vertx.core.json.JsonObject;

/** The JSON shapes of the answers, the same bytes as bulkhead's (field order included). */
final class CustomerJson {
  private CustomerJson() {}

  static JsonObject answer(Customer c, JsonObject loyalty) {
    return new JsonObject().put("id", c.id()).put("name", c.name()).put("segment", c.segment())
        .put("country", c.country()).put("loyalty", loyalty);
  }

  /** `{"error": <the status's reason phrase>, "detail": ...}`, as bulkhead's ApiError. */
  static JsonObject error(String reason, String detail) {
    return new JsonObject().put("error", reason).put("detail", detail);
  }
}
