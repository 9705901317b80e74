package bulkhead.zoo;

import bulkhead.peers.JsonError;
import bulkhead.peers.PeerOptions;
import java.sql.Connection;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.web.servlet.context.ServletWebServerApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowCallbackHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A Spring Boot 3 web app on its embedded Tomcat (`server.tomcat.threads.max` 200, Boot's default) whose `/work`
 * runs `SELECT pg_sleep(hold)` on PostgreSQL (at --jdbc-url) through Spring's `JdbcTemplate` on the HikariCP pool Boot
 * builds from `spring.datasource.*`, of --pool-size connections. The pool caps it: the other Tomcat threads wait to
 * borrow a connection, so by Little's law at most pool-size / hold requests per second (10 / 0.1 s = 100 req/s by
 * default). Started in code, every property set here: no application.properties, no component scan.
 */
final class SpringHikari implements ZooApp {
  private static final int TomcatThreads = 200;
  private final int poolSize;
  private final int holdMs;
  private final String jdbcUrl;

  SpringHikari(ZooFlags flags) {
    poolSize = flags.number("--pool-size", 10, 1, 1000);
    holdMs = flags.number("--hold-ms", 100, 0, 60_000);
    jdbcUrl = flags.jdbcUrl;
    if (jdbcUrl.isEmpty()) PeerOptions.fail(ZooFlags.Program, "--jdbc-url URL is required by spring-hikari");
  }

  @Override
  public int start(int port) throws Exception {
    // Spring, Tomcat and HikariCP log through SLF4J to the zoo's slf4j-simple: warnings only, nothing per request.
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    }
    SpringApplication spring = new SpringApplication(Config.class);
    spring.setDefaultProperties(Map.ofEntries(
        Map.entry("server.address", "127.0.0.1"),
        Map.entry("server.port", Integer.toString(port)),
        Map.entry("server.tomcat.threads.max", Integer.toString(TomcatThreads)),
        Map.entry("spring.datasource.url", jdbcUrl),
        // Fixed size, as the pool the resource stands for: no idle shrinking while the lab samples it.
        Map.entry("spring.datasource.hikari.maximum-pool-size", Integer.toString(poolSize)),
        Map.entry("spring.datasource.hikari.minimum-idle", Integer.toString(poolSize)),
        Map.entry("zoo.hold-ms", Integer.toString(holdMs)),
        Map.entry("spring.main.banner-mode", "off"),
        Map.entry("spring.main.log-startup-info", "false"),
        Map.entry("logging.level.root", "warn")));
    ServletWebServerApplicationContext context = (ServletWebServerApplicationContext) spring.run();
    // Boot opens the pool at its first query: opened here, as hikari-pg does, a database that is down stops the start.
    try (Connection connection = context.getBean(DataSource.class).getConnection()) {
      connection.isValid(5);
    } catch (Exception e) {
      context.close();
      throw e;
    }
    return context.getWebServer().getPort();
  }

  /** The app: Boot's auto-configuration (Tomcat, MVC, the HikariCP DataSource, JdbcTemplate) and {@link Work}. */
  @SpringBootConfiguration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  public static class Config {
    @Bean
    public Work work(JdbcTemplate jdbc, Environment environment) {
      return new Work(jdbc, environment.getRequiredProperty("zoo.hold-ms", Integer.class));
    }
  }

  /** `/hello` without the pool (the lab's readiness probe), `/work` through it. */
  @RestController
  public static class Work {
    private final JdbcTemplate jdbc;
    private final double holdSeconds;

    Work(JdbcTemplate jdbc, int holdMs) {
      this.jdbc = jdbc;
      this.holdSeconds = holdMs / 1000.0;
    }

    @GetMapping(path = "/hello", produces = "text/plain; charset=utf-8")
    public String hello() {
      return "OK";
    }

    @GetMapping("/work")
    public ResponseEntity<String> work() {
      try {
        jdbc.query("SELECT pg_sleep(?)", (RowCallbackHandler) row -> {}, holdSeconds);
        return ResponseEntity.ok().contentType(MediaType.parseMediaType("text/plain; charset=utf-8")).body("OK");
      } catch (DataAccessException e) {
        return ResponseEntity.status(HttpStatus.BAD_GATEWAY).contentType(MediaType.APPLICATION_JSON)
            .body(JsonError.body("database failed", e.toString()));
      }
    }
  }
}
