package bulkhead.lab.cli

import bulkhead.lab.diagnose.Diagnosis
import bulkhead.lab.model.Target
import bulkhead.lab.process.{Children, Stack}
import bulkhead.lab.sample.JmxAddress
import bulkhead.lab.testkit.{Fixtures, Scratch}
import org.scalatest.BeforeAndAfterAll
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.nio.file.Files
import scala.concurrent.duration.*

/**
 * `lab diagnose` on a fleet: two replicas of the zoo's Undertow app whose `/work` holds one of 4 semaphore permits for
 * 100 ms (40 req/s each), each reached only through its JMX agent (`--jmx` given twice), loaded through a targets file
 * of both replicas' URLs (the lab's own client: wrk loads one host). The semaphore is full on each: the fleet's cap is
 * the sum, 80 req/s.
 */
@Slow
class DiagnoseFleetSpec extends AnyFlatSpec with Matchers with BeforeAndAfterAll:
  private val dir = Scratch.dir("diagnose-fleet")
  override def afterAll(): Unit = Children.stopAll()

  /** A replica with its JMX agent on a free loopback port; its HTTP port and its agent's. */
  private def replica(): (String, Int) =
    val port = Stack.freePort()
    val agent = Seq(s"-Dcom.sun.management.jmxremote.port=$port", s"-Dcom.sun.management.jmxremote.rmi.port=$port",
      "-Dcom.sun.management.jmxremote.host=127.0.0.1", "-Djava.rmi.server.hostname=127.0.0.1",
      "-Dcom.sun.management.jmxremote.authenticate=false", "-Dcom.sun.management.jmxremote.ssl=false")
    val served = Stack(Fixtures.launch, dir).peer(Target.Zoo, Seq("--app", "undertow-semaphore", "--worker-threads",
      "16", "--permits", "4", "--hold-ms", "100"), agent)
    (served.url("/work"), port)

  "lab diagnose with --jmx twice" should "cap a fleet whose replicas each fill their semaphore at the sum of theirs" in {
    val (urlA, jmxA) = replica()
    val (urlB, jmxB) = replica()
    val targets = Files.writeString(dir.resolve("replicas.txt"), s"GET $urlA\n\nGET $urlB\n")
    val options = DiagnoseCommand.Options(
      jvm = JvmFlags(jmx = Seq(JmxAddress("127.0.0.1", jmxA), JmxAddress("127.0.0.1", jmxB))), connections = 24,
      duration = 10.seconds, every = 1.second, requests = RequestFlags(targets = Some(targets)))
    val record = DiagnoseCommand.run(options, dir.resolve("fleet"), _ => ()).fold(e => fail(e), identity)
    record.info.nodes shouldBe Seq(s"jmx 127.0.0.1:$jmxA", s"jmx 127.0.0.1:$jmxB")
    record.otherNodes.map(_.samples.size).head should be >= 4
    record.load.driver shouldBe "closed-loop"
    val v = Diagnosis(record)
    info(v.line("fleet"))
    withClue(v.line("fleet")) {
      v.cap.name shouldBe "semaphore"
      v.cap.why should include("of 4 permits held on each of 2 nodes")
      v.cap.why should include("2 x 4 permits")
      // 4 permits held 100 ms (and more on a busy machine) on each replica: at most 40 req/s each, 80 the fleet; the
      // lab's caps are held to 10 % of the constructed one, as in its accuracy suite.
      v.predicted should be <= 88.0
      v.ratio shouldBe (1.0 +- 0.2)
      record.load.routes.map(_.answered).foreach(n => n.toDouble shouldBe (record.load.answers.answered / 2.0 +-
        record.load.answers.answered * 0.15))
    }
  }
