package bulkhead.lab.sample

import bulkhead.lab.cli.{DiagnoseCommand, JvmFlags, ThreadsCommand}
import bulkhead.lab.testkit.Scratch
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.io.{BufferedReader, InputStreamReader}
import java.lang.management.ManagementFactory
import java.net.{InetAddress, ServerSocket}
import java.nio.file.attribute.PosixFilePermissions
import java.nio.file.{Files, Path}
import java.time.Instant
import java.util.concurrent.TimeUnit
import jdk.jfr.consumer.RecordingFile
import jdk.management.jfr.FlightRecorderMXBean
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*

/**
 * A JVM reached only over JMX, on loopback: `JmxWorkers` (three pools whose threads stand still) started with its JMX
 * agent on, without and with authentication, read by the lab's JMX sampler and set beside its jcmd dump.
 */
@Slow
class JmxSamplerSpec extends AnyFlatSpec with Matchers:
  private val java = Path.of(System.getProperty("java.home"), "bin", "java").toString
  private val source = Path.of(getClass.getResource("/jvm/JmxWorkers.java").toURI).toString
  private val pools = Set("ledger-worker", "vault-worker", "idle-worker")

  private def freePort(): Int =
    val s = ServerSocket(0, 1, InetAddress.getLoopbackAddress)
    try s.getLocalPort finally s.close()

  /** JmxWorkers with its agent on `port` of 127.0.0.1 (one port for the registry and the connections), until `test` ends. */
  private def withWorkers(agent: Seq[String])(test: (Process, JmxAddress) => Unit): Unit =
    val port = freePort()
    val flags = Seq(s"-Dcom.sun.management.jmxremote.port=$port", s"-Dcom.sun.management.jmxremote.rmi.port=$port",
      "-Dcom.sun.management.jmxremote.host=127.0.0.1", "-Djava.rmi.server.hostname=127.0.0.1",
      "-Dcom.sun.management.jmxremote.ssl=false") ++ agent
    val jvm = ProcessBuilder((Seq(java, "-Xmx64m") ++ flags :+ source)*).redirectErrorStream(true).start()
    try
      val out = BufferedReader(InputStreamReader(jvm.getInputStream))
      val seen = Iterator.continually(out.readLine()).takeWhile(_ != null).take(50).find(_ == "ready")
      withClue(s"JmxWorkers did not start (exit ${if jvm.isAlive then "-" else jvm.exitValue()}): ")(seen shouldBe Some("ready"))
      test(jvm, JmxAddress("127.0.0.1", port))
    finally
      jvm.destroy()
      if !jvm.waitFor(10, TimeUnit.SECONDS) then jvm.destroyForcibly().waitFor()

  private def open(address: JmxAddress, credentials: Option[JmxCredentials] = None): JmxConnection =
    JmxConnection.open(address, credentials).fold(e => fail(e), identity)

  private def ours(samples: Seq[PoolSample]) = samples.filter(p => pools(p.pool)).sortBy(_.pool)

  private def secret(dir: Path, name: String, text: String): Path =
    val f = dir.resolve(name)
    Files.writeString(f, text)
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"))
    f

  "JmxSampler" should "read a JVM's pools and locks over JMX as the lab reads them from its jcmd dump" in
    withWorkers(Seq("-Dcom.sun.management.jmxremote.authenticate=false")) { (jvm, address) =>
      val connection = open(address)
      try
        val sampler = JmxSampler(connection)
        val sample = sampler.sample(0)
        val byPool = ours(sample.pools).map(p => p.pool -> p).toMap
        byPool.keySet shouldBe pools
        (byPool("ledger-worker").threads, byPool("ledger-worker").busy, byPool("ledger-worker").blocked) shouldBe (4, 4, 4)
        byPool("ledger-worker").waits shouldBe Map("sleep" -> 1, "monitor java.lang.Object at JmxWorkers.post" -> 3)
        (byPool("vault-worker").threads, byPool("vault-worker").busy) shouldBe (3, 3)
        (byPool("idle-worker").threads, byPool("idle-worker").busy) shouldBe (2, 0)
        // The same pools and resources as the attach API's dump of the same instant (the threads stand still).
        val jcmd = ThreadDump.parse(ThreadSampler.dump(jvm.pid).fold(e => fail(e), identity))
        ours(sample.pools) shouldBe ours(PoolSample.of(jcmd))
        val resources = sample.resources.filter(_.waiterPools.keySet.subsetOf(pools))
        resources.map(r => (r.key, r.waiters, r.holderPools)) shouldBe Seq(
          ("monitor java.lang.Object at JmxWorkers.post", 3, Map("ledger-worker" -> 1)),
          ("parked java.util.concurrent.locks.ReentrantLock$NonfairSync at JmxWorkers.open", 2, Map("vault-worker" -> 1)))
        resources shouldBe WaitGraph.of(jcmd).filter(_.waiterPools.keySet.subsetOf(pools))
        sample.cpuSeconds.get should be > 0.0
        sample.platformThreads.get should be >= 9
        sampler.cores.get should be >= 1
        Thread.sleep(200)
        val later = sampler.process(0.2)
        later.machineTotalTicks.get should be > 0L
        later.machineBusyTicks.get should be <= later.machineTotalTicks.get
      finally connection.close()
    }

  it should "serve lab diagnose --jmx --no-load and lab threads --jmx, with the JVM's own JDK and cores" in
    withWorkers(Seq("-Dcom.sun.management.jmxremote.authenticate=false")) { (_, address) =>
      val dir = Scratch.dir("diagnose-jmx")
      val options = DiagnoseCommand.Options(jvm = JvmFlags(jmx = Seq(address)), noLoad = true, duration = 2.seconds, every = 1.second)
      val record = DiagnoseCommand.run(options, dir, _ => ()).fold(e => fail(e), identity)
      record.info.name shouldBe s"jmx-127.0.0.1-${address.port}"
      record.info.target shouldBe s"jmx 127.0.0.1:${address.port}"
      record.info.jdk shouldBe System.getProperty("java.vm.version")
      record.samples.head.pools.map(_.pool) should contain allElementsOf pools
      record.beforeLoad.flatMap(_.cpuSeconds).get should be > 0.0
      Files.exists(dir.resolve("result.json")) shouldBe true
      ThreadsCommand.main(Seq("--jmx", address.text, "--count", "2", "--every", "100ms")) shouldBe 0
    }

  "JmxRecording" should "keep the lab's recording in a JVM over JMX, copy it here as a file, and close it" in
    withWorkers(Seq("-Dcom.sun.management.jmxremote.authenticate=false")) { (_, address) =>
      val connection = open(address)
      try
        val recording = JmxRecording(connection.server)
        recording.start() shouldBe Right(())
        val recorder = ManagementFactory.getPlatformMXBean(connection.server, classOf[FlightRecorderMXBean])
        def ours = recorder.getRecordings.asScala.filter(_.getName == VirtualThreadEvents.recordingName)
        ours.map(_.getState) shouldBe Seq("RUNNING")
        val file = recording.collect(Instant.now().minusSeconds(5)).fold(e => fail(e), identity)
        try
          val types = RecordingFile(file).readEventTypes().asScala.map(_.getName)
          types should contain allElementsOf VirtualWait.Events.keys
        finally Files.deleteIfExists(file)
        recording.stop()
        ours shouldBe empty
      finally connection.close()
    }

  "JmxSampler" should "take the JVM for dead once its connection is lost, ending the run there" in
    withWorkers(Seq("-Dcom.sun.management.jmxremote.authenticate=false")) { (jvm, address) =>
      val killer = Thread(() => { Thread.sleep(3000); jvm.destroyForcibly(); () })
      killer.start()
      val options = DiagnoseCommand.Options(JvmFlags(jmx = Seq(address)), noLoad = true, duration = 60.seconds,
        every = 1.second)
      val record = DiagnoseCommand.run(options, Scratch.dir("diagnose-jmx-dies"), _ => ())
        .fold(e => fail(e), identity)
      killer.join()
      val death = record.death.getOrElse(fail("no death recorded"))
      death.how should startWith("the JMX connection was lost")
      death.second should be < 60.0
      record.samples should not be empty
      record.samples.map(_.second).foreach(_ should be < death.second)
    }

  it should "authenticate with the user and password of a file, and say what is wrong without them" in {
    val dir = Scratch.dir("jmx-auth")
    val passwords = secret(dir, "jmxremote.password", "labuser s3cret\nwatcher w4tch\n")
    val access = secret(dir, "jmxremote.access", "labuser readwrite\nwatcher readonly\n")
    withWorkers(Seq("-Dcom.sun.management.jmxremote.authenticate=true",
      s"-Dcom.sun.management.jmxremote.password.file=$passwords",
      s"-Dcom.sun.management.jmxremote.access.file=$access")) { (_, address) =>
      val credentials = secret(dir, "lab-credentials", "labuser s3cret\n")
      val connection = open(address, Some(JmxCredentials.read(credentials).fold(e => fail(e), identity)))
      try ours(JmxSampler(connection).sample(0).pools).map(_.pool) shouldBe pools.toSeq.sorted
      finally connection.close()
      JmxConnection.open(address, None).left.toOption.get should include("--jmx-credentials FILE")
      val wrong = secret(dir, "wrong", "labuser guess\n")
      JmxConnection.open(address, JmxCredentials.read(wrong).toOption).left.toOption.get should
        include("Invalid username or password")
      // A thread dump is an MBean operation, which a readonly user may not call.
      val watcher = open(address, JmxCredentials.read(secret(dir, "watcher", "watcher w4tch\n")).toOption)
      try
        val sampler = JmxSampler(watcher)
        sampler.sample(0).pools shouldBe empty
        sampler.lastDumpError.get should include("needs readwrite access")
      finally watcher.close()
      ThreadsCommand.main(Seq("--jmx", address.text, "--jmx-credentials", credentials.toString, "--count", "1")) shouldBe 0
      Files.setPosixFilePermissions(credentials, PosixFilePermissions.fromString("rw-r--r--"))
      ThreadsCommand.main(Seq("--jmx", address.text, "--jmx-credentials", credentials.toString, "--count", "1")) shouldBe 2
    }
  }

  "JmxConnection" should "say where it could not connect, and why" in {
    val address = JmxAddress("127.0.0.1", freePort())
    val err = JmxConnection.open(address, None, 10.seconds).left.toOption.get
    err should startWith(s"cannot connect to JMX at $address")
    err should include("-Dcom.sun.management.jmxremote.port")
  }
