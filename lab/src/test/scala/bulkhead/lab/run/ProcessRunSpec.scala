package bulkhead.lab.run

import bulkhead.lab.record.RecordJson
import bulkhead.lab.testkit.Scratch
import org.scalatest.BeforeAndAfterAll
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.io.{BufferedReader, InputStreamReader}
import java.nio.file.{Files, Path}
import java.util.concurrent.TimeUnit
import scala.concurrent.duration.*

/**
 * A JVM the lab did not start, measured by pid: `JmxWorkers` (pools whose threads stand still) run on a JDK other than
 * the lab's and told it has one processor, so that what the run records can only be the target's.
 */
@Slow
class ProcessRunSpec extends AnyFlatSpec with Matchers with BeforeAndAfterAll:
  private val source = Path.of(getClass.getResource("/jvm/JmxWorkers.java").toURI).toString

  /** A JDK 17 (`java` of the OS packages), the oldest the lab supports, while the lab runs on another one. */
  private val otherJdk: Path =
    val lab = Runtime.version().feature()
    val jdks = Option(Path.of("/usr/lib/jvm").toFile.listFiles).toSeq.flatten.map(_.toPath)
      .filter(d => Files.isExecutable(d.resolve("bin/java")) && Files.isExecutable(d.resolve("bin/jcmd")))
    jdks.find(d => d.getFileName.toString.contains("17") && lab != 17)
      .orElse(jdks.find(d => !d.getFileName.toString.contains(lab.toString)))
      .getOrElse(fail(s"needs a second JDK under /usr/lib/jvm besides the lab's JDK $lab: apt-get install openjdk-17-jdk"))

  /** Started once for the spec's cases: its pools stand still, so what one case reads does not change the other's. */
  private lazy val workers: Process =
    val jvm = ProcessBuilder(otherJdk.resolve("bin/java").toString, "-Xmx64m", "-XX:ActiveProcessorCount=1", source)
      .redirectErrorStream(true).start()
    val out = BufferedReader(InputStreamReader(jvm.getInputStream))
    Iterator.continually(out.readLine()).takeWhile(_ != null).take(50).find(_ == "ready") shouldBe Some("ready")
    jvm

  override def afterAll(): Unit =
    if workers.isAlive then
      workers.destroy()
      if !workers.waitFor(10, TimeUnit.SECONDS) then workers.destroyForcibly().waitFor()

  private def withWorkers(test: Long => Unit): Unit = test(workers.pid())

  private def versionOf(java: Path): String =
    val p = ProcessBuilder(java.toString, "-XshowSettings:properties", "-version").redirectErrorStream(true).start()
    val text = String(p.getInputStream.readAllBytes())
    p.waitFor()
    """java\.vm\.version = (\S+)""".r.findFirstMatchIn(text).map(_.group(1)).get

  "ProcessRun" should "record the target's own JDK and processors, not the lab's" in withWorkers { pid =>
    val dir = Scratch.dir("process-run")
    val record = ProcessRun.on(RunningJvm.ByPid(pid), 300.millis, _ => ())(_.observed(1.second, None, dir))
      .fold(e => fail(e), identity)
    record.info.jdk shouldBe versionOf(otherJdk.resolve("bin/java"))
    record.info.jdk should not be System.getProperty("java.vm.version")
    record.info.cores shouldBe 1
    record.info.name shouldBe s"pid-$pid"
    record.samples.flatMap(_.pools).map(_.pool) should contain("ledger-worker")
    RecordJson.read(dir.resolve(RecordJson.FileName)).map(_.info.jdk) shouldBe Right(record.info.jdk)
  }

  it should "take a series of samples, every one with the JVM's pools" in withWorkers { pid =>
    val samples = ProcessRun.on(RunningJvm.ByPid(pid), 100.millis, _ => ())(_.series(3)).fold(e => fail(e), identity)
    samples should have size 3
    all(samples.map(_.pools.map(_.pool))) should contain allOf ("ledger-worker", "vault-worker", "idle-worker")
  }

  "A JVM by pid" should "be refused before anything starts when the process is not a JVM, or is gone" in {
    val sleeper = ProcessBuilder("sleep", "30").start()
    try
      RunningJvm.ByPid(sleeper.pid()).refused shouldBe Some(s"process ${sleeper.pid()} is not a JVM (no libjvm.so in it)")
      RunningJvm.ByPid(ProcessHandle.current().pid()).refused shouldBe None
      RunningJvm.ByPid(999_999_999L).refused shouldBe Some("no process 999999999")
    finally sleeper.destroy()
  }
