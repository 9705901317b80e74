import com.sun.net.httpserver.HttpServer;
import java.lang.reflect.Field;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A JVM that serves `GET /` with `OK` on a free loopback port (written to the file named by its first argument), then
 * crashes of SIGSEGV after the seconds its second argument gives: a write through sun.misc.Unsafe to address 0, which
 * HotSpot reports in an hs_err file before it aborts. What TargetWatchSpec samples die under load.
 */
public class DiesMidRun {
  public static void main(String[] args) throws Exception {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 100);
    server.createContext("/", exchange -> {
      byte[] ok = "OK".getBytes();
      exchange.sendResponseHeaders(200, ok.length);
      exchange.getResponseBody().write(ok);
      exchange.close();
    });
    server.start();
    Files.writeString(Path.of(args[0]), Integer.toString(server.getAddress().getPort()));
    Thread.sleep(Long.parseLong(args[1]) * 1000);
    Field f = Class.forName("sun.misc.Unsafe").getDeclaredField("theUnsafe");
    f.setAccessible(true);
    Object unsafe = f.get(null);
    unsafe.getClass().getMethod("putAddress", long.class, long.class).invoke(unsafe, 0L, 42L);
  }
}
