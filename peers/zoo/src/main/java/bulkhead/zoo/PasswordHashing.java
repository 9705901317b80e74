package bulkhead.zoo;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.concurrent.ThreadLocalRandom;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * Undertow whose `/work` hashes a password with PBKDF2 (HMAC-SHA256, --iterations rounds, the JDK's own provider) on
 * a worker thread: a CPU-bound handler. The machine's cores cap it, not the --worker-threads: each request costs a
 * fixed amount of CPU, so by Little's law at most cores / CPU per request requests per second, whatever the threads;
 * more threads only share the same cores.
 */
final class PasswordHashing implements ZooApp {
  private final int workerThreads;
  private final int iterations;

  PasswordHashing(ZooFlags flags) {
    workerThreads = flags.number("--worker-threads", 32, 1, 32768);
    iterations = flags.number("--iterations", 10_000, 1, 10_000_000);
  }

  @Override
  public int start(int port) throws GeneralSecurityException {
    SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256");
    return UndertowServer.start(port, 2, workerThreads, UndertowServer.dispatched(this::hash));
  }

  private void hash() throws GeneralSecurityException {
    byte[] salt = new byte[16];
    ThreadLocalRandom.current().nextBytes(salt);
    PBEKeySpec spec = new PBEKeySpec("correct horse battery staple".toCharArray(), salt, iterations, 256);
    try {
      SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
    } finally {
      spec.clearPassword();
    }
  }
}
