package bulkhead.zoo;

import bulkhead.peers.JsonError;
import bulkhead.peers.PeerOptions;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.undertow.server.HttpServerExchange;
import io.undertow.server.handlers.BlockingHandler;
import io.undertow.util.Headers;
import io.undertow.util.StatusCodes;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * Undertow whose `/work` runs `SELECT pg_sleep(hold)` on PostgreSQL (at --jdbc-url) on a worker thread, through a
 * HikariCP pool of --pool-size connections. The pool caps it: the other workers wait to borrow a connection, so by
 * Little's law at most pool-size / hold requests per second (10 / 0.1 s = 100 req/s by default), well below the 100
 * --worker-threads.
 */
final class HikariPg implements ZooApp {
  private final int workerThreads;
  private final int poolSize;
  private final int holdMs;
  private final String jdbcUrl;

  HikariPg(ZooFlags flags) {
    workerThreads = flags.number("--worker-threads", 100, 1, 32768);
    poolSize = flags.number("--pool-size", 10, 1, 1000);
    holdMs = flags.number("--hold-ms", 100, 0, 60_000);
    jdbcUrl = flags.jdbcUrl;
    if (jdbcUrl.isEmpty()) PeerOptions.fail(ZooFlags.Program, "--jdbc-url URL is required by hikari-pg");
  }

  @Override
  public int start(int port) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(jdbcUrl);
    // Fixed size, as the pool the resource stands for: no idle shrinking while the lab samples it.
    config.setMaximumPoolSize(poolSize);
    config.setMinimumIdle(poolSize);
    HikariDataSource pool = new HikariDataSource(config);
    return UndertowServer.start(port, 2, workerThreads, new BlockingHandler(exchange -> query(pool, exchange)));
  }

  private void query(HikariDataSource pool, HttpServerExchange exchange) {
    try (Connection connection = pool.getConnection();
         PreparedStatement sleep = connection.prepareStatement("SELECT pg_sleep(?)")) {
      sleep.setDouble(1, holdMs / 1000.0);
      sleep.executeQuery().close();
      UndertowServer.ok(exchange);
    } catch (SQLException e) {
      exchange.setStatusCode(StatusCodes.BAD_GATEWAY);
      exchange.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/json");
      exchange.getResponseSender().send(JsonError.body("database failed", e.toString()));
    }
  }
}
