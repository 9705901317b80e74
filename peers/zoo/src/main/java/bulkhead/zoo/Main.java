package bulkhead.zoo;

import bulkhead.peers.PeerOptions;

/** Starts the zoo's app that --app names on 127.0.0.1 and writes its port to --port-file. */
public final class Main {
  private static final String Usage = String.join("\n",
      "usage: zoo --app NAME [--port N] [--port-file FILE] [knobs of the app]",
      "  undertow-lock        --io-threads 2 --worker-threads 64 --hold-ms 10   (one monitor)",
      "  undertow-reentrant   --io-threads 2 --worker-threads 64 --hold-ms 10   (one ReentrantLock)",
      "  undertow-semaphore   --io-threads 2 --worker-threads 64 --permits 4 --hold-ms 100",
      "  undertow-io-blocked  --io-threads 2 --hold-ms 20   (sleeps on the IO threads)",
      "  vertx-blocked        --event-loops 2 --hold-ms 50   (sleeps on the event loops)",
      "  httpclient-pool      --worker-threads 100 --max-connections 5 --soap-endpoint URL",
      "  hikari-pg            --worker-threads 100 --pool-size 10 --hold-ms 100 --jdbc-url jdbc:postgresql://...",
      "  spring-hikari        --pool-size 10 --hold-ms 100 --jdbc-url jdbc:postgresql://...   (Spring Boot, Tomcat)",
      "                       [--virtual-threads on] [--tls-port N, with -Djavax.net.ssl.keyStore=...]",
      "  async-client         --worker-threads 100 --max-connections 5 --soap-endpoint URL   (waits on futures)",
      "  future-pool          --worker-threads 100 --pool-size 5 --soap-endpoint URL   (waits on an executor's futures)",
      "  jedis-held           --worker-threads 64 --pool-size 8 --hold-ms 50 --redis-uri URI   (pool held across a sleep)",
      "  password-hashing     --worker-threads 32 --iterations 10000   (PBKDF2: CPU-bound)",
      "  virtual-parking      --io-threads 2 --hold-ms 100 --steps 4 --parkers 0 --park-ms 10   (virtual threads, JDK 21+)",
      "Every app also accepts --redis-uri URI, --soap-endpoint URL and --jdbc-url URL (the lab's backing flags).");

  public static void main(String[] args) {
    ZooFlags flags = ZooFlags.parse(args, Usage);
    ZooApp app = ZooApp.of(flags);
    flags.refuseUnread();
    int bound = 0;
    try {
      bound = app.start(flags.port);
    } catch (Exception e) {
      System.err.println(ZooFlags.Program + ": " + flags.app + " cannot start on port " + flags.port + ": " + e);
      System.exit(1);
    }
    PeerOptions.announce(ZooFlags.Program + " " + flags.app, flags.portFile, bound);
  }
}
