package bulkhead.peers.vertx;

/** The `{id}` of `/customers/{id}`, validated as bulkhead validates it: a positive decimal integer of 1..9 digits. */
final class CustomerId {
  private static final int MaxDigits = 9;

  private CustomerId() {}

  /** The id, or throws {@link Refusal} 400 with bulkhead's sentence. */
  static int parse(String raw) {
    if (raw.isEmpty()) throw new Refusal(400, "customer id is empty");
    if (raw.length() > MaxDigits) throw notANumber();
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c < '0' || c > '9') throw notANumber();
    }
    int id = Integer.parseInt(raw);
    if (id <= 0) throw new Refusal(400, "customer id must be positive");
    return id;
  }

  private static Refusal notANumber() {
    return new Refusal(400, "customer id must be a positive integer of at most " + MaxDigits + " digits");
  }
}
