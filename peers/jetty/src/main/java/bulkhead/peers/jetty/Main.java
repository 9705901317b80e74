package bulkhead.peers.jetty;

import bulkhead.peers.PeerOptions;
import bulkhead.peers.PoolOptions;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * A plain Jetty 12 server on 127.0.0.1 whose one pool, the QueuedThreadPool, is sized by --max-threads/--min-threads.
 * The pool also runs the connector's acceptor and selector, so fewer than max-threads serve requests.
 */
public final class Main {
  private static final String Program = "jetty-peer";

  public static void main(String[] args) {
    PoolOptions options = PoolOptions.parse(Program, args);
    // Jetty's own default name (qtp<hash>): the lab must recognise a pool nobody named for it.
    QueuedThreadPool pool = new QueuedThreadPool(options.maxThreads, options.minThreads);
    Server server = new Server(pool);
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(options.port);
    server.addConnector(connector);
    server.setHandler(new SleepHandler());
    try {
      server.start();
    } catch (Exception e) {
      System.err.println(Program + ": cannot start on port " + options.port + ": " + e.getMessage());
      System.exit(1);
    }
    PeerOptions.announce(Program, options.portFile, connector.getLocalPort());
  }
}
