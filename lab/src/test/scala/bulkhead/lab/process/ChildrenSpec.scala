package bulkhead.lab.process

import bulkhead.lab.testkit.{ChildHolder, Scratch}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.io.{BufferedReader, InputStreamReader}
import java.nio.file.{Files, Path}
import java.util.concurrent.TimeUnit
import scala.jdk.CollectionConverters.*

/** Ctrl-C on a lab process: its JVM's shutdown hook stops every process it started, and what those started. */
@Slow
class ChildrenSpec extends AnyFlatSpec with Matchers:
  private def classpath: String =
    val deps = Path.of("target", "runtime-classpath.txt")
    require(Files.exists(deps), s"$deps missing: build the lab first (./mvnw -pl lab -am test-compile)")
    Seq("target/test-classes", "target/classes").map(Path.of(_).toAbsolutePath.toString).mkString(":") + ":" +
      Files.readString(deps).trim

  /**
   * A JVM leaves SIGINT ignored when it started with it ignored (a shell's background job): then it is not this
   * test's JVM that is under test but how it was started, so the lab in miniature starts with SIGINT at its default.
   */
  private def sigintIgnoredHere: Boolean =
    Files.readAllLines(Path.of("/proc/self/status")).asScala.find(_.startsWith("SigIgn:"))
      .exists(l => (java.lang.Long.parseUnsignedLong(l.split("\\s+")(1), 16) & 0x2L) != 0)

  private def alive(pid: Long) = ProcessHandle.of(pid).map(_.isAlive).orElse(false)

  "Children" should "stop every child and its own children when the lab's JVM gets SIGINT (Ctrl-C)" in {
    val dir = Scratch.dir("bulkhead-children")
    val java = Path.of(System.getProperty("java.home"), "bin", "java").toString
    val reset = if sigintIgnoredHere then Seq("perl", "-e", "$SIG{INT} = 'DEFAULT'; exec @ARGV or die") else Nil
    val lab = ProcessBuilder((reset ++ Seq(java, "-cp", classpath, ChildHolder.getClass.getName.stripSuffix("$"),
      dir.toString)).asJava).redirectErrorStream(true).start()
    var pids = Seq.empty[Long]
    try
      val out = BufferedReader(InputStreamReader(lab.getInputStream))
      val line = Iterator.continually(out.readLine()).takeWhile(_ != null).find(_.startsWith("child "))
        .getOrElse(fail("the lab in miniature did not start its child"))
      pids = line.split(' ').toSeq.flatMap(_.toLongOption)
      pids should have size 2
      pids.foreach(p => alive(p) shouldBe true)

      Runtime.getRuntime.exec(Array("kill", "-INT", lab.pid.toString)).waitFor()
      lab.waitFor(30, TimeUnit.SECONDS) shouldBe true
      // The hook stopped them before the JVM exited; allow the kernel a moment to reap the orphaned grandchild.
      val deadline = System.nanoTime() + 5_000_000_000L
      while pids.exists(alive) && System.nanoTime() < deadline do Thread.sleep(50)
      pids.filter(alive) shouldBe empty
    finally
      pids.filter(alive).foreach(p => ProcessHandle.of(p).ifPresent(_.destroyForcibly()))
      if lab.isAlive then lab.destroyForcibly()
  }
