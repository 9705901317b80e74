/**
 * Three named virtual threads (`sleeper-N`) asleep until the JVM is stopped: in one sleep of ten minutes, or, given a
 * number of milliseconds, in naps of that length one after another (each nap unmounts the thread and a timer mounts
 * it again). What ServiceSamplerSpec samples live.
 */
public class VirtualSleepers {
  public static void main(String[] args) throws Exception {
    long nap = args.length > 0 ? Long.parseLong(args[0]) : 600_000;
    for (int i = 0; i < 3; i++)
      Thread.ofVirtual().name("sleeper-" + i).start(() -> {
        try { while (true) Thread.sleep(nap); } catch (InterruptedException e) { }
      });
    Thread.sleep(600_000);
  }
}
