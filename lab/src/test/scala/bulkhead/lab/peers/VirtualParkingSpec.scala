package bulkhead.lab.peers

import bulkhead.lab.cli.{DiagnoseCommand, JvmFlags}
import bulkhead.lab.diagnose.Diagnosis
import bulkhead.lab.model.{Resource, Target}
import bulkhead.lab.process.{Children, Stack}
import bulkhead.lab.sample.{DumpHazards, DumpKind, JdkVersion, SamplingSource}
import bulkhead.lab.testkit.{Fixtures, Scratch}
import org.scalatest.BeforeAndAfterAll
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.tags.Slow
import org.scalatest.matchers.should.Matchers

import scala.concurrent.duration.*

/**
 * The crash hazard of the JSON thread dump, as a test: the zoo's virtual-parking app on this JDK (JDK 25.0.3, whose
 * JSON thread dump can crash a JVM while virtual threads mount and unmount) with 2,000 virtual threads parking and
 * unparking beside 100 clients' requests (virtual threads asleep 4 x 50 ms), sampled by `lab diagnose --pid` every second. By default the
 * lab never takes the JSON dump there: the JVM survives, and the verdict still reads its virtual threads, from JFR.
 * With --allow-risky-dumps it takes it: asserted without depending on whether the JVM then crashes (it may or may not
 * in a few seconds; docs/sampling.md has the recorded runs).
 */
@Slow
class VirtualParkingSpec extends AnyFlatSpec with Matchers with BeforeAndAfterAll:
  private val stack = Stack(Fixtures.launch, Scratch.dir("lab-virtual-parking"))
  override def afterAll(): Unit = Children.stopAll()
  private val jdk = JdkVersion.parse(System.getProperty("java.version")).get
  private val flags = Seq("--app", "virtual-parking", "--parkers", "2000", "--park-ms", "200", "--hold-ms", "200")

  private def diagnose(allowRisky: Boolean, duration: FiniteDuration) =
    val zoo = stack.peer(Target.Zoo, flags)
    try
      val options = DiagnoseCommand.Options(JvmFlags(pid = Some(zoo.child.pid), allowRiskyDumps = allowRisky),
        url = zoo.url("/work"), connections = 100, duration = duration, every = 1.second)
      val record = DiagnoseCommand.run(options, Scratch.dir("diagnose-virtual"), _ => ())
        .fold(e => fail(e), identity)
      (record, zoo.child.isAlive)
    finally zoo.child.stop()

  "The lab's default sampling" should "leave a JDK 25 JVM of virtual threads parking under load alive, and read them" in {
    assume(DumpHazards.Known.of(DumpKind.Json, jdk).nonEmpty, s"JDK $jdk has no known JSON-dump defect")
    val (record, alive) = diagnose(allowRisky = false, 12.seconds)
    alive shouldBe true
    record.death shouldBe None
    val source = record.sampling.flatMap(_.source).getOrElse(fail("no sampling source recorded"))
    (source.platform, source.virtual, source.risky) shouldBe
      (SamplingSource.ClassicInsteadOfJson, Some(SamplingSource.JfrAttach), false)
    source.reason should include("JDK-8364343")
    // The requests' virtual threads, seen asleep through JFR in the measured samples.
    val requests = record.measuredSamples.flatMap(_.pools.find(_.pool == "request"))
    requests should not be empty
    requests.foreach(p => (p.virtual, p.busy) shouldBe (true, p.threads))
    requests.map(_.threads).max should be > 50
    record.measuredSamples.flatMap(_.virtualThreads).max should be > 50
    // 100 clients on 200 ms: the clients' own bound (500 req/s) caps it, as it would with the JSON dump; the
    // requests' threads wait in the work itself (asleep), so it is named as that wait, not as the load generator.
    Diagnosis(record).cap.resource shouldBe Resource.Wait
  }

  "--allow-risky-dumps" should "take the JSON dump there, recorded as risky, and name the JVM's death if it comes" in {
    assume(DumpHazards.Known.of(DumpKind.Json, jdk).nonEmpty, s"JDK $jdk has no known JSON-dump defect")
    val (record, alive) = diagnose(allowRisky = true, 3.seconds)
    val source = record.sampling.flatMap(_.source).getOrElse(fail("no sampling source recorded"))
    (source.platform, source.risky) shouldBe (SamplingSource.JsonDump, true)
    record.death match
      case Some(d) =>
        alive shouldBe false
        d.sentence should include("hs_err")
      case None =>
        alive shouldBe true
        record.samples.flatMap(_.pools).exists(p => p.pool == "request" && p.virtual) shouldBe true
  }
