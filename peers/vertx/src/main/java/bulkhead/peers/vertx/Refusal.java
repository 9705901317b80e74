package bulkhead.peers.vertx;

/**
 * Why a request gets no customer: its status and the sentence the client reads (bulkhead's). Carried by a failed
 * future to the router's failure handler; no stack trace, as it is an answer, not a bug.
 */
final class Refusal extends RuntimeException {
  final int status;

  Refusal(int status, String detail) {
    super(detail, null, false, false);
    this.status = status;
  }
}
