/** Three named virtual threads asleep until the JVM is stopped: what ServiceSamplerSpec samples live. */
public class VirtualSleepers {
  public static void main(String[] args) throws Exception {
    for (int i = 0; i < 3; i++)
      Thread.ofVirtual().name("sleeper-" + i).start(() -> {
        try { Thread.sleep(600_000); } catch (InterruptedException e) { }
      });
    Thread.sleep(600_000);
  }
}
