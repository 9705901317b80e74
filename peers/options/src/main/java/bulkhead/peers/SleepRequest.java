package bulkhead.peers;

/**
 * What `/work/pool?ms=` asks of a pool peer (Jetty, Tomcat): the milliseconds to hold its thread (100 when absent), or
 * why the request is refused, for a 400.
 */
public final class SleepRequest {
  /** The longest sleep a request may ask for. */
  public static final int MaxMs = 60_000;

  public final int ms;
  /** Why the request is refused; null when `ms` is the time to sleep. */
  public final String refusal;

  private SleepRequest(int ms, String refusal) {
    this.ms = ms;
    this.refusal = refusal;
  }

  /** Reads the `ms` parameter as the request gave it (null when absent). */
  public static SleepRequest of(String raw) {
    int ms;
    try {
      ms = raw == null ? 100 : Integer.parseInt(raw);
    } catch (NumberFormatException e) {
      return new SleepRequest(0, "ms must be a number, was '" + raw + "'");
    }
    if (ms < 0 || ms > MaxMs) return new SleepRequest(0, "ms must be 0.." + MaxMs + ", was " + ms);
    return new SleepRequest(ms, null);
  }
}
