package bulkhead.peers.vertx;

/** A customer as the third party knows it. */
record Customer(int id, String name, String segment, String country) {}
