package bulkhead.zoo;

import bulkhead.peers.PeerOptions;
import java.util.List;

/**
 * One server of the zoo: built from its flags (which validates them), then started on loopback. Each answers `GET
 * /hello` with `OK` without touching its capped resource (the lab's readiness probe) and `GET /work` through it.
 */
interface ZooApp {
  /** Binds 127.0.0.1:`port` (0: any free) and serves; the bound port. */
  int start(int port) throws Exception;

  /** Every app's name, as --app takes it. */
  List<String> Names = List.of("undertow-lock", "undertow-reentrant", "undertow-semaphore", "undertow-io-blocked",
      "vertx-blocked", "httpclient-pool", "hikari-pg", "spring-hikari", "async-client", "future-pool", "jedis-held",
      "password-hashing", "virtual-parking");

  /** The app `flags.app` names, its knobs read from `flags`; an unknown name stops the start. */
  static ZooApp of(ZooFlags flags) {
    switch (flags.app) {
      case "undertow-lock": return new UndertowLock(flags, false);
      case "undertow-reentrant": return new UndertowLock(flags, true);
      case "undertow-semaphore": return new UndertowSemaphore(flags);
      case "undertow-io-blocked": return new UndertowIoBlocked(flags);
      case "vertx-blocked": return new VertxBlocked(flags);
      case "httpclient-pool": return new HttpClientPool(flags);
      case "hikari-pg": return new HikariPg(flags);
      case "spring-hikari": return new SpringHikari(flags);
      case "async-client": return new AsyncClientPool(flags);
      case "future-pool": return new FuturePool(flags);
      case "jedis-held": return new JedisHeld(flags);
      case "password-hashing": return new PasswordHashing(flags);
      case "virtual-parking": return new VirtualParking(flags);
      default:
        PeerOptions.fail(ZooFlags.Program, (flags.app.isEmpty() ? "--app is required" : "unknown --app '" + flags.app
            + "'") + ": expected one of " + String.join(", ", Names));
        return null;
    }
  }
}
