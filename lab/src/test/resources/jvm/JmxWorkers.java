import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Three pools whose threads stand still until the JVM is stopped, for JmxSamplerSpec to read over JMX: `ledger-worker`
 * (4 threads: one sleeps inside a monitor, three are BLOCKED entering it), `vault-worker` (3 threads: one sleeps
 * holding a ReentrantLock, two are parked on it) and `idle-worker` (2 threads waiting for a task). Prints `ready`.
 */
public class JmxWorkers {
  static final Object LEDGER = new Object();
  static final ReentrantLock VAULT = new ReentrantLock();

  public static void main(String[] args) throws Exception {
    ExecutorService ledger = Executors.newFixedThreadPool(4, named("ledger-worker-"));
    for (int i = 0; i < 4; i++) ledger.submit(JmxWorkers::post);
    ExecutorService vault = Executors.newFixedThreadPool(3, named("vault-worker-"));
    for (int i = 0; i < 3; i++) vault.submit(JmxWorkers::open);
    ThreadPoolExecutor idle = (ThreadPoolExecutor) Executors.newFixedThreadPool(2, named("idle-worker-"));
    idle.prestartAllCoreThreads();
    while (VAULT.getQueueLength() < 2 || !VAULT.isLocked()) Thread.sleep(10);
    System.out.println("ready");
    System.out.flush();
    Thread.sleep(600_000);
  }

  static void post() {
    synchronized (LEDGER) { sleep(); }
  }

  static void open() {
    VAULT.lock();
    try { sleep(); } finally { VAULT.unlock(); }
  }

  static void sleep() {
    try { Thread.sleep(600_000); } catch (InterruptedException e) { }
  }

  static ThreadFactory named(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> new Thread(r, prefix + n.incrementAndGet());
  }
}
