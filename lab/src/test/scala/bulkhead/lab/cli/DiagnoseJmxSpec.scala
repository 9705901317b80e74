package bulkhead.lab.cli

import bulkhead.lab.diagnose.Diagnosis
import bulkhead.lab.model.Target
import bulkhead.lab.process.Stack
import bulkhead.lab.sample.JmxAddress
import bulkhead.lab.testkit.{Fixtures, Scratch}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.net.{InetAddress, ServerSocket}
import scala.concurrent.duration.*

/**
 * `lab diagnose --jmx` on a JVM it reaches only through its JMX agent: Jetty 12 with a QueuedThreadPool of 12, its
 * agent on a loopback port, loaded by real wrk while the lab samples it over JMX (no pid, no attach, no /proc).
 */
@Slow
class DiagnoseJmxSpec extends AnyFlatSpec with Matchers:
  "lab diagnose --jmx" should "name Jetty's worker pool, with its size, as the cap of blocking work" in {
    val port =
      val s = ServerSocket(0, 1, InetAddress.getLoopbackAddress)
      try s.getLocalPort finally s.close()
    val agent = Seq(s"-Dcom.sun.management.jmxremote.port=$port", s"-Dcom.sun.management.jmxremote.rmi.port=$port",
      "-Dcom.sun.management.jmxremote.host=127.0.0.1", "-Djava.rmi.server.hostname=127.0.0.1",
      "-Dcom.sun.management.jmxremote.authenticate=false", "-Dcom.sun.management.jmxremote.ssl=false")
    val launch = Fixtures.launch
    val dir = Scratch.dir("diagnose-jetty-jmx")
    val jetty = Stack(launch.copy(jvmFlags = launch.jvmFlags ++ agent), dir)
      .peer(Target.Jetty, Seq("--max-threads", "12", "--min-threads", "12"))
    try
      val options = DiagnoseCommand.Options(jvm = JvmFlags(jmx = Seq(JmxAddress("127.0.0.1", port))),
        url = jetty.url("/work/pool?ms=100"), connections = 40, duration = 6.seconds, every = 1.second)
      val record = DiagnoseCommand.run(options, dir, _ => ()).fold(e => fail(e), identity)
      record.info.target shouldBe s"jmx 127.0.0.1:$port"
      val verdict = Diagnosis(record)
      verdict.name shouldBe "pool qtp"
      // As DiagnoseCommandSpec by pid: 12 threads, one Jetty's acceptor and one its selector, 10 hold 100 ms requests.
      verdict.predicted shouldBe (100.0 +- 15.0)
      verdict.ratio shouldBe (1.0 +- 0.2)
      verdict.fix.map(_.sentence).get should include("QueuedThreadPool maxThreads")
      verdict.cpuMicrosPerRequest.get should be > 0.0
    finally jetty.child.stop()
  }
