package bulkhead.peers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A directory of this server's own for the files its framework writes while it runs (an embedded Tomcat's base and
 * work directories), in the system's temporary directory and deleted with its contents when the JVM exits (SIGTERM,
 * as the lab stops a peer): nothing a user asked for is in it.
 */
public final class ScratchDir {
  private ScratchDir() {}

  public static Path create(String prefix) throws IOException {
    Path dir = Files.createTempDirectory(prefix);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(dir), prefix + "-scratch"));
    return dir;
  }

  /** As far as it can: a second pass takes what a server still stopping wrote during the first. */
  private static void delete(Path dir) {
    for (int pass = 0; pass < 2 && Files.exists(dir); pass++) {
      try (Stream<Path> all = Files.walk(dir)) {
        all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      } catch (IOException | RuntimeException e) {
        // Left to the next pass, or to the system's temporary cleaning.
      }
    }
  }
}
