package bulkhead.zoo;

import bulkhead.peers.JsonError;
import bulkhead.peers.PeerOptions;
import bulkhead.peers.ScratchDir;
import java.sql.Connection;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.apache.catalina.connector.Connector;
import org.apache.tomcat.util.net.SSLHostConfig;
import org.apache.tomcat.util.net.SSLHostConfigCertificate;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.web.embedded.tomcat.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
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
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * A Spring Boot 3 web app on its embedded Tomcat (`server.tomcat.threads.max` 200, Boot's default) whose `/work`
 * runs `SELECT pg_sleep(hold)` on PostgreSQL (at --jdbc-url) through Spring's `JdbcTemplate` on the HikariCP pool Boot
 * builds from `spring.datasource.*`, of --pool-size connections. The pool caps it: the other Tomcat threads wait to
 * borrow a connection, so by Little's law at most pool-size / hold requests per second (10 / 0.1 s = 100 req/s by
 * default). Started in code, every property set here: no application.properties, no component scan.
 *
 * As a user's service is: `POST /orders` runs the same query for a request with an `Authorization` header and a body
 * (else Spring answers 400), `/actuator/prometheus` publishes Boot's standard meters (Tomcat's threads, HikariCP's
 * connections, the task executor, the requests, the JVM's threads), `--virtual-threads on` serves requests on
 * virtual threads (Boot's `spring.threads.virtual.enabled`), and `--tls-port N` adds an HTTPS connector on N whose key
 * is the JVM's (`-Djavax.net.ssl.keyStore=... -Djavax.net.ssl.keyStorePassword=...`).
 */
final class SpringHikari implements ZooApp {
  private static final int TomcatThreads = 200;
  private final int poolSize;
  private final int holdMs;
  private final String jdbcUrl;
  private final boolean virtualThreads;
  private final int tlsPort;

  SpringHikari(ZooFlags flags) {
    poolSize = flags.number("--pool-size", 10, 1, 1000);
    holdMs = flags.number("--hold-ms", 100, 0, 60_000);
    virtualThreads = flags.onOff("--virtual-threads", false);
    tlsPort = flags.number("--tls-port", -1, 0, 65535);
    jdbcUrl = flags.jdbcUrl;
    if (jdbcUrl.isEmpty()) PeerOptions.fail(ZooFlags.Program, "--jdbc-url URL is required by spring-hikari");
    if (tlsPort >= 0 && System.getProperty("javax.net.ssl.keyStore") == null) {
      PeerOptions.fail(ZooFlags.Program, "--tls-port needs the JVM's key store: -Djavax.net.ssl.keyStore=FILE "
          + "-Djavax.net.ssl.keyStorePassword=...");
    }
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
        // Boot's own base directory (tomcat.<port>.<n>) would outlive the app: it only marks it to delete if empty.
        Map.entry("server.tomcat.basedir", ScratchDir.create("zoo-tomcat").toString()),
        Map.entry("spring.datasource.url", jdbcUrl),
        // Fixed size, as the pool the resource stands for: no idle shrinking while the lab samples it.
        Map.entry("spring.datasource.hikari.maximum-pool-size", Integer.toString(poolSize)),
        Map.entry("spring.datasource.hikari.minimum-idle", Integer.toString(poolSize)),
        Map.entry("zoo.hold-ms", Integer.toString(holdMs)),
        Map.entry("zoo.tls-port", Integer.toString(tlsPort)),
        Map.entry("spring.threads.virtual.enabled", Boolean.toString(virtualThreads)),
        // Boot's standard meters on /actuator/prometheus; Tomcat's thread pool is metered only with its MBeans on.
        Map.entry("management.endpoints.web.exposure.include", "prometheus"),
        Map.entry("server.tomcat.mbeanregistry.enabled", "true"),
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

    /** An HTTPS connector beside the HTTP one, on zoo.tls-port, when it is 0 or more. */
    @Bean
    public WebServerFactoryCustomizer<TomcatServletWebServerFactory> tls(Environment environment) {
      int port = environment.getRequiredProperty("zoo.tls-port", Integer.class);
      return factory -> {
        if (port < 0) return;
        Connector https = new Connector(TomcatServletWebServerFactory.DEFAULT_PROTOCOL);
        https.setPort(port);
        https.setScheme("https");
        https.setSecure(true);
        https.setProperty("address", "127.0.0.1");
        https.setProperty("SSLEnabled", "true");
        SSLHostConfig host = new SSLHostConfig();
        SSLHostConfigCertificate certificate = new SSLHostConfigCertificate(host, SSLHostConfigCertificate.Type.UNDEFINED);
        certificate.setCertificateKeystoreFile(System.getProperty("javax.net.ssl.keyStore"));
        certificate.setCertificateKeystorePassword(System.getProperty("javax.net.ssl.keyStorePassword", ""));
        host.addCertificate(certificate);
        https.addSslHostConfig(host);
        factory.addAdditionalTomcatConnectors(https);
      };
    }
  }

  /** `/hello` without the pool (the lab's readiness probe), `/work` and `POST /orders` through it. */
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
      return query();
    }

    /** A client's order: refused with 400 by Spring without its `Authorization` header or its body. */
    @PostMapping("/orders")
    public ResponseEntity<String> order(@RequestHeader("Authorization") String authorization,
        @RequestBody String order) {
      return query();
    }

    private ResponseEntity<String> query() {
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
