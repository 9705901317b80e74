package bulkhead.lab.sample

import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/**
 * Which dump a JVM's pools are read from, on the recorded answers of real JVMs: `jcmd VM.version` of JDK 25 and 17, the
 * JSON and classic dumps of one run of the service on `/work/virtual?ms=200` at 20 connections (see JsonThreadDumpSpec).
 * JDK 25.0.3's JSON dump is one the hazard table marks as risky once virtual threads run: it is taken then only when
 * allowed (the JSON dump of an idle JDK 25 JVM, and its scheduler's answer before and after a virtual thread ran).
 */
class JvmPoolsSpec extends AnyFlatSpec with Matchers:
  private val Connections = 20
  private val VirtualPool = "bulkhead-bulkhead.dispatch.virtual-pool"

  /** Answers of one JVM, counting the commands it is asked. */
  private final class Jvm(version: String, json: Either[String, String],
      classic: Either[String, String] = Right(Fixtures.text("threaddump-virtual200-c20-jdk25.txt")),
      allowRisky: Boolean = true):
    var asked: Map[String, Int] = Map.empty
    private def answer(command: String, a: Either[String, String]) =
      asked = asked.updated(command, asked.getOrElse(command, 0) + 1)
      a
    val pools = JvmPools(() => answer("VM.version", Right(Fixtures.text(version))),
      () => answer("Thread.dump_to_file", json), () => answer("Thread.print", classic),
      () => answer("Thread.vthread_scheduler", Right(Fixtures.text("vthread-scheduler-virtual200-c20-jdk25.txt"))),
      allowRisky)
    def sample(): Seq[PoolSample] = pools.sample().fold(e => fail(e), identity)

  private def jdk25 = Jvm("vm-version-jdk25.txt", Right(Fixtures.text("threaddump-virtual200-c20-1-jdk25.json")))

  "JvmPools" should "never ask JDK 25.0.3 for its JSON dump unless allowed: Thread.print, and virtual threads seen" in {
    val jvm = Jvm("vm-version-jdk25.txt", Left("must not be asked"), allowRisky = false)
    (1 to 2).foreach(_ => jvm.sample() should not be empty)
    // The scheduler, asked once, tells that virtual threads have run: no JSON dump asked.
    jvm.asked shouldBe Map("VM.version" -> 1, "Thread.print" -> 2, "Thread.vthread_scheduler" -> 1)
    jvm.pools.readsJson shouldBe false
    jvm.pools.runsVirtualThreads shouldBe true
    jvm.pools.source.platform shouldBe SamplingSource.ClassicInsteadOfJson
    jvm.pools.source.reason should include("JDK-8364343")
  }

  it should "take JDK 25.0.3's JSON dump while the JVM has never started a virtual thread, asking before each dump" in {
    var scheduler = "vthread-scheduler-unused-jdk25.txt"
    var asked = Map.empty[String, Int]
    def answer(command: String, file: String) =
      asked = asked.updated(command, asked.getOrElse(command, 0) + 1)
      Right(Fixtures.text(file))
    val pools = JvmPools(() => answer("VM.version", "vm-version-jdk25.txt"),
      () => answer("Thread.dump_to_file", "threaddump-idle-jdk25.json"),
      () => answer("Thread.print", "threaddump-blocking-soap-jdk25.txt"),
      () => answer("Thread.vthread_scheduler", scheduler))
    (1 to 2).foreach(_ => pools.sample() should not be Symbol("left"))
    (pools.readsJson, pools.runsVirtualThreads) shouldBe (true, false)
    pools.source.platform shouldBe SamplingSource.JsonDump
    pools.source.reason should include("has started none")
    // A virtual thread starts: from the next sample on, Thread.print.
    scheduler = "vthread-scheduler-virtual200-c20-jdk25.txt"
    pools.sample() should not be Symbol("left")
    (pools.readsJson, pools.runsVirtualThreads) shouldBe (false, true)
    asked("Thread.dump_to_file") shouldBe 2
    asked("Thread.print") shouldBe 1
    pools.source.platform shouldBe SamplingSource.ClassicInsteadOfJson
  }

  it should "read a JDK 25 JVM's pools from its JSON dump when allowed, virtual threads and their carriers included" in {
    val jvm = jdk25
    val pools = jvm.sample()
    val virtual = pools.find(_.pool == VirtualPool).get
    (virtual.threads, virtual.busy, virtual.virtual) shouldBe (Connections, Connections, true)
    pools.find(_.pool == PoolNames.VirtualCarriers) should not be empty
    pools.filterNot(_.pool == VirtualPool).foreach(p => withClue(p.pool)(p.virtual shouldBe false))
    jvm.asked.get("Thread.print") shouldBe None
  }

  it should "ask the version and the scheduler once, and a JSON dump at every sample" in {
    val jvm = jdk25
    (1 to 3).foreach(_ => jvm.sample())
    jvm.asked shouldBe Map("VM.version" -> 1, "Thread.vthread_scheduler" -> 1, "Thread.dump_to_file" -> 3)
  }

  it should "read a JDK 17 JVM from Thread.print, never asking it for JSON" in {
    val jvm = Jvm("vm-version-jdk17.txt", Left("must not be asked"),
      Right(Fixtures.text("threaddump-default2-jdk17.txt")))
    (1 to 2).foreach(_ => jvm.sample() should not be empty)
    jvm.asked shouldBe Map("VM.version" -> 1, "Thread.print" -> 2)
  }

  it should "turn to Thread.print for good once a JSON dump failed where a classic one did not" in {
    val jvm = Jvm("vm-version-jdk25.txt", Left("no JSON thread dump"))
    jvm.sample().find(_.pool == VirtualPool) shouldBe None
    jvm.sample() should not be empty
    jvm.asked("Thread.dump_to_file") shouldBe 1
    jvm.asked("Thread.print") shouldBe 2
    jvm.pools.readsJson shouldBe false
  }

  it should "fail a sample only when both dumps fail, saying why each did" in {
    val jvm = Jvm("vm-version-jdk25.txt", Left("no JSON thread dump"), Left("attach failed"))
    jvm.pools.sample() shouldBe Left("no JSON thread dump; attach failed")
  }

  it should "take classic dumps until the version can be read, then JSON ones" in {
    val versions = Iterator[Either[String, String]](Left("attach failed")) ++
      Iterator.continually(Right(Fixtures.text("vm-version-jdk25.txt")))
    val pools = JvmPools(() => versions.next(),
      () => Right(Fixtures.text("threaddump-virtual200-c20-1-jdk25.json")),
      () => Right(Fixtures.text("threaddump-virtual200-c20-jdk25.txt")), () => Left("no scheduler"),
      allowRiskyDumps = true)
    pools.sample().toOption.get.find(_.pool == VirtualPool) shouldBe None
    pools.sample().toOption.get.find(_.pool == VirtualPool).map(_.threads) shouldBe Some(Connections)
  }

  "JdkVersion.ofVmVersion" should "read the version from a JVM's VM.version" in {
    JdkVersion.ofVmVersion(Fixtures.text("vm-version-jdk25.txt")).map(_.feature) shouldBe Some(25)
    JdkVersion.ofVmVersion(Fixtures.text("vm-version-jdk17.txt")).map(_.feature) shouldBe Some(17)
    JdkVersion.ofVmVersion("12345:\nUnknown diagnostic command") shouldBe None
  }
