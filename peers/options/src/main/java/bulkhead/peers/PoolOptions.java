package bulkhead.peers;

/**
 * The flags of a peer written on a server framework with one worker pool (Jetty, Tomcat): --port (0 = any free),
 * --port-file (written once bound), and the pool's bounds in the frameworks' own terms, --max-threads (default 200,
 * both frameworks' default) and --min-threads (Jetty's minThreads, Tomcat's minSpareThreads; default 8). A bad flag
 * stops the start with exit code 2 and a message naming it.
 */
public final class PoolOptions {
  public final int port;
  public final String portFile;
  public final int maxThreads;
  public final int minThreads;

  private PoolOptions(int port, String portFile, int maxThreads, int minThreads) {
    this.port = port;
    this.portFile = portFile;
    this.maxThreads = maxThreads;
    this.minThreads = minThreads;
  }

  public static PoolOptions parse(String program, String[] args) {
    int port = 8080;
    String portFile = "";
    int maxThreads = 200;
    int minThreads = 8;
    for (int i = 0; i < args.length; i++) {
      String flag = args[i];
      if (flag.equals("--help")) {
        System.out.println("usage: " + program + " [--port N] [--port-file FILE] [--max-threads N] [--min-threads N]");
        System.exit(0);
      }
      if (i + 1 >= args.length) PeerOptions.fail(program, flag + " needs a value");
      String value = args[++i];
      switch (flag) {
        case "--port": port = PeerOptions.number(program, flag, value, 0, 65535); break;
        case "--port-file": portFile = value; break;
        case "--max-threads": maxThreads = PeerOptions.number(program, flag, value, 1, 32768); break;
        case "--min-threads": minThreads = PeerOptions.number(program, flag, value, 1, 32768); break;
        default: PeerOptions.fail(program, "unknown option '" + flag + "'");
      }
    }
    if (minThreads > maxThreads) {
      PeerOptions.fail(program, "--min-threads (" + minThreads + ") must not exceed --max-threads (" + maxThreads + ")");
    }
    return new PoolOptions(port, portFile, maxThreads, minThreads);
  }
}
