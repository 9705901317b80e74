package bulkhead.zoo;

import bulkhead.peers.PeerOptions;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * The zoo's command line: `--flag value` pairs, read by name. The shared ones are read here (--app, --port,
 * --port-file, and --redis-uri, --soap-endpoint and --jdbc-url, which the lab may pass to any app); each app reads
 * its own knobs with their defaults, then {@link #refuseUnread} stops the start on a knob of another app. A flag of no
 * app, or a bad value, stops the start with exit code 2 and a message naming the flag.
 */
final class ZooFlags {
  static final String Program = "zoo";
  /** Every flag some app reads: another is refused before the app is chosen, so even without a good --app. */
  private static final Set<String> Known = Set.of("--app", "--port", "--port-file", "--redis-uri", "--soap-endpoint",
      "--jdbc-url", "--io-threads", "--worker-threads", "--hold-ms", "--permits", "--event-loops", "--max-connections",
      "--pool-size", "--iterations", "--virtual-threads", "--tls-port", "--steps", "--parkers", "--park-ms");

  private final Map<String, String> given;
  private final Set<String> read = new LinkedHashSet<>();
  final String app;
  final int port;
  final String portFile;
  /** Empty when not given; only jedis-held connects to it. */
  final String redisUri;
  /** Empty when not given; httpclient-pool, async-client and future-pool call it. */
  final String soapEndpoint;
  /** Empty when not given; only hikari-pg and spring-hikari connect to it. */
  final String jdbcUrl;

  private ZooFlags(Map<String, String> given) {
    this.given = given;
    this.app = text("--app", "");
    this.port = number("--port", 8080, 0, 65535);
    this.portFile = text("--port-file", "");
    // The lab passes the service's backing to every target of a scenario: accepted, used by the apps that call it.
    this.redisUri = text("--redis-uri", "");
    if (!redisUri.isEmpty() && !redisUri.startsWith("redis://")) {
      PeerOptions.fail(Program, "--redis-uri must be a redis:// URI, was '" + redisUri + "'");
    }
    this.soapEndpoint = text("--soap-endpoint", "");
    if (!soapEndpoint.isEmpty()) url("--soap-endpoint", soapEndpoint);
    this.jdbcUrl = text("--jdbc-url", "");
    if (!jdbcUrl.isEmpty() && !jdbcUrl.startsWith("jdbc:postgresql://")) {
      PeerOptions.fail(Program, "--jdbc-url must be a jdbc:postgresql:// URL, was '" + jdbcUrl + "'");
    }
  }

  static ZooFlags parse(String[] args, String usage) {
    Map<String, String> given = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String flag = args[i];
      if (flag.equals("--help")) {
        System.out.println(usage);
        System.exit(0);
      }
      if (!Known.contains(flag)) PeerOptions.fail(Program, "unknown option '" + flag + "'");
      if (i + 1 >= args.length) PeerOptions.fail(Program, flag + " needs a value");
      if (given.put(flag, args[++i]) != null) PeerOptions.fail(Program, flag + " is given twice");
    }
    return new ZooFlags(given);
  }

  /** `flag` as an int in min..max, `fallback` when absent. */
  int number(String flag, int fallback, int min, int max) {
    read.add(flag);
    String value = given.get(flag);
    return value == null ? fallback : PeerOptions.number(Program, flag, value, min, max);
  }

  /** `flag` as `on` or `off`, `fallback` when absent. */
  boolean onOff(String flag, boolean fallback) {
    String value = text(flag, fallback ? "on" : "off");
    if (!value.equals("on") && !value.equals("off")) {
      PeerOptions.fail(Program, flag + " must be on or off, was '" + value + "'");
    }
    return value.equals("on");
  }

  String text(String flag, String fallback) {
    read.add(flag);
    return given.getOrDefault(flag, fallback);
  }

  /** Stops the start unless `value` is an absolute http(s) URL. */
  static void url(String flag, String value) {
    try {
      URI uri = URI.create(value);
      String scheme = uri.getScheme();
      if (!("http".equals(scheme) || "https".equals(scheme)) || uri.getHost() == null) {
        PeerOptions.fail(Program, flag + " must be an http:// or https:// URL, was '" + value + "'");
      }
    } catch (IllegalArgumentException e) {
      PeerOptions.fail(Program, flag + " must be a URL, was '" + value + "': " + e.getMessage());
    }
  }

  /** A flag no one read is a mistake (a knob of another app, a typo): it stops the start, named. */
  void refuseUnread() {
    for (String flag : given.keySet()) {
      if (!read.contains(flag)) PeerOptions.fail(Program, "unknown option '" + flag + "' for --app " + app);
    }
  }
}
