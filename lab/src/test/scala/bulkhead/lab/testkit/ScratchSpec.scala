package bulkhead.lab.testkit

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.io.{BufferedReader, InputStreamReader}
import java.nio.file.{Files, Path}
import java.util.concurrent.TimeUnit

/** The tests' temporary files, in JVMs of their own: gone when the JVM exits, or at the next start if it was killed. */
@Slow
class ScratchSpec extends AnyFlatSpec with Matchers:
  private def classpath: String =
    val deps = Path.of("target", "runtime-classpath.txt")
    require(Files.exists(deps), s"$deps missing: build the lab first (./mvnw -pl lab -am test-compile)")
    // The package graph's classes (ScratchRoot) are a test dependency, not in the runtime classpath.
    Seq("target/test-classes", "target/classes", "../package-graph/target/classes").map(Path.of(_).toAbsolutePath
      .toString).mkString(":") + ":" +
      Files.readString(deps).trim

  /** Starts a [[ScratchUser]] with `mode`; returns it and the file it wrote. */
  private def user(mode: String): (Process, Path) =
    val java = Path.of(System.getProperty("java.home"), "bin", "java").toString
    val jvm = ProcessBuilder(java, "-cp", classpath, ScratchUser.getClass.getName.stripSuffix("$"), mode)
      .redirectErrorStream(true).start()
    val out = BufferedReader(InputStreamReader(jvm.getInputStream))
    val line = Iterator.continually(out.readLine()).takeWhile(_ != null).find(_.startsWith("file "))
    if line.isEmpty then jvm.destroyForcibly()
    (jvm, Path.of(line.getOrElse(fail("the scratch user printed no file")).stripPrefix("file ")))

  "Scratch" should "delete its JVM's directory, and what is in it, when the JVM exits" in {
    val (jvm, file) = user("exit")
    jvm.waitFor(30, TimeUnit.SECONDS) shouldBe true
    jvm.exitValue() shouldBe 0
    Files.exists(file.getParent) shouldBe false
  }

  it should "delete at the next start the directory of a JVM killed before its shutdown hook ran" in {
    val (killed, file) = user("wait")
    try
      Files.readString(file) shouldBe "kept until the JVM exits"
      killed.destroyForcibly()
      killed.waitFor(30, TimeUnit.SECONDS) shouldBe true
      Files.exists(file) shouldBe true
      val (next, _) = user("exit")
      next.waitFor(30, TimeUnit.SECONDS) shouldBe true
      Files.exists(file.getParent) shouldBe false
    finally if killed.isAlive then killed.destroyForcibly()
  }
