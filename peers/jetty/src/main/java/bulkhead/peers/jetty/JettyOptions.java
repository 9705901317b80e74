package bulkhead.peers.jetty;

import bulkhead.peers.PeerOptions;

/**
 * The Jetty peer's flags: --port (0 = any free), --port-file (written once bound), and the size of Jetty's
 * QueuedThreadPool in Jetty's own terms, --max-threads (default 200, Jetty's) and --min-threads (default 8, Jetty's).
 * The pool also runs the connector's acceptor and selector, so fewer than max-threads serve requests. A bad flag
 * stops the start with exit code 2 and a message naming it.
 */
public final class JettyOptions {
  public final int port;
  public final String portFile;
  public final int maxThreads;
  public final int minThreads;

  private JettyOptions(int port, String portFile, int maxThreads, int minThreads) {
    this.port = port;
    this.portFile = portFile;
    this.maxThreads = maxThreads;
    this.minThreads = minThreads;
  }

  public static JettyOptions parse(String program, String[] args) {
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
    return new JettyOptions(port, portFile, maxThreads, minThreads);
  }
}
