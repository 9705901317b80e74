package bulkhead.peers.tomcat;

import bulkhead.peers.PeerOptions;
import bulkhead.peers.PoolOptions;
import bulkhead.peers.ScratchDir;
import java.nio.file.Path;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;

/**
 * An embedded Tomcat 11 on 127.0.0.1 with one servlet; its NIO connector's executor (threads `http-nio-...-exec-N`)
 * is sized by --max-threads (Tomcat's maxThreads) and --min-threads (minSpareThreads). The acceptor and poller are
 * threads of their own.
 */
public final class Main {
  private static final String Program = "tomcat-peer";

  public static void main(String[] args) throws Exception {
    PoolOptions options = PoolOptions.parse(Program, args);
    Path base = ScratchDir.create("tomcat-peer");
    Tomcat tomcat = new Tomcat();
    tomcat.setBaseDir(base.toString());
    Connector connector = new Connector("HTTP/1.1");
    connector.setPort(options.port);
    connector.setProperty("address", "127.0.0.1");
    connector.setProperty("maxThreads", Integer.toString(options.maxThreads));
    connector.setProperty("minSpareThreads", Integer.toString(options.minThreads));
    tomcat.setConnector(connector);
    Context context = tomcat.addContext("", base.toString());
    Tomcat.addServlet(context, "sleep", new SleepServlet());
    context.addServletMappingDecoded("/*", "sleep");
    try {
      tomcat.start();
    } catch (Exception e) {
      System.err.println(Program + ": cannot start on port " + options.port + ": " + e.getMessage());
      System.exit(1);
    }
    if (connector.getLocalPort() <= 0) {
      System.err.println(Program + ": cannot bind port " + options.port);
      System.exit(1);
    }
    PeerOptions.announce(Program, options.portFile, connector.getLocalPort());
    tomcat.getServer().await();
  }
}
