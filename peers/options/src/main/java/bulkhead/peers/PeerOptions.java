package bulkhead.peers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The flags of a peer server, the subset of bulkhead's that the seeds' experiments vary: --port (0 = any free),
 * --port-file (written once bound), --blocking-pool-size (seed 001's fixed-pool-size, default 200) and
 * --max-connections (default: the framework's own, 1024 in Akka HTTP, as in seed 003). A bad flag stops the start
 * with exit code 2 and a message naming it.
 */
public final class PeerOptions {
  public final int port;
  public final String portFile;
  public final int blockingPoolSize;
  /** -1: the framework's default. */
  public final int maxConnections;

  private PeerOptions(int port, String portFile, int blockingPoolSize, int maxConnections) {
    this.port = port;
    this.portFile = portFile;
    this.blockingPoolSize = blockingPoolSize;
    this.maxConnections = maxConnections;
  }

  public static PeerOptions parse(String program, String[] args) {
    int port = 8080;
    String portFile = "";
    int pool = 200;
    int maxConnections = -1;
    for (int i = 0; i < args.length; i++) {
      String flag = args[i];
      if (flag.equals("--help")) {
        System.out.println("usage: " + program + " [--port N] [--port-file FILE] [--blocking-pool-size N] "
            + "[--max-connections N]");
        System.exit(0);
      }
      if (i + 1 >= args.length) fail(program, flag + " needs a value");
      String value = args[++i];
      switch (flag) {
        case "--port": port = number(program, flag, value, 0, 65535); break;
        case "--port-file": portFile = value; break;
        case "--blocking-pool-size": pool = number(program, flag, value, 1, 32768); break;
        case "--max-connections": maxConnections = number(program, flag, value, 1, 1_000_000); break;
        default: fail(program, "unknown option '" + flag + "'");
      }
    }
    return new PeerOptions(port, portFile, pool, maxConnections);
  }

  /** Writes the bound port to --port-file, when given: the lab waits for it. */
  public void announce(String program, int boundPort) {
    announce(program, portFile, boundPort);
  }

  /** The same for a peer with flags of its own: prints the address and writes `portFile` unless it is empty. */
  public static void announce(String program, String portFile, int boundPort) {
    System.out.println(program + " listening on http://127.0.0.1:" + boundPort + " (JDK "
        + Runtime.version() + ")");
    if (!portFile.isEmpty()) {
      try {
        Files.writeString(Path.of(portFile), Integer.toString(boundPort));
      } catch (IOException e) {
        fail(program, "cannot write --port-file " + portFile + ": " + e.getMessage());
      }
    }
  }

  /** `value` as an int in min..max, or the start stops with a message naming `flag`. */
  public static int number(String program, String flag, String value, int min, int max) {
    try {
      int n = Integer.parseInt(value);
      if (n < min || n > max) fail(program, flag + " must be " + min + ".." + max + ", was " + value);
      return n;
    } catch (NumberFormatException e) {
      fail(program, flag + " must be a number, was '" + value + "'");
      return 0;
    }
  }

  /** Stops the start: exit code 2 and the message, as for every bad flag. */
  /** The server could not bind `port`: says why and stops the start with exit code 1. */
  public void cannotBind(String program, Object why) {
    System.err.println(program + ": cannot bind port " + port + ": " + why);
    System.exit(1);
  }

  public static void fail(String program, String message) {
    System.err.println(program + ": " + message);
    System.exit(2);
  }
}
