package bulkhead.lab

import bulkhead.lab.diagnose.VerdictJson
import bulkhead.lab.model.{FixKind, Resource, Target}
import bulkhead.lab.process.{Served, Stack}
import bulkhead.lab.record.RecordJson
import bulkhead.lab.testkit.{Fixtures, Scratch}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.{Files, Path}
import java.util.concurrent.TimeUnit
import scala.jdk.CollectionConverters.*

/**
 * bulkhead-lab.jar as a user gets it (run by failsafe after `package`, on the jar the build just made): copied alone
 * into an empty directory outside the clone, run with `java -jar` from there, with HOME an empty folder (no ~/.m2)
 * and a PATH that holds wrk and nothing else (no Maven, no Go). The service is one of the zoo's: Undertow whose /work
 * holds one of 4 semaphore permits for 100 ms, which caps it at 40 req/s; then restarted with the permits the verdict
 * named, and diagnosed again with --expect.
 */
class LabJarIT extends AnyFlatSpec with Matchers:
  private val jar = Path.of(sys.props.getOrElse("bulkhead.lab.jar", "target/bulkhead-lab.jar")).toAbsolutePath
  private val java = Path.of(System.getProperty("java.home"), "bin", "java").toString

  private def files(dir: Path): Seq[String] =
    scala.util.Using.resource(Files.walk(dir))(_.iterator.asScala.toVector).map(p => dir.relativize(p).toString)
      .filter(_.nonEmpty).sorted

  /** `java -jar bulkhead-lab.jar args` in `work`, as the user would type it: exit code and everything it printed. */
  private def lab(work: Path, home: Path, bin: Path, args: String*): (Int, String) =
    val pb = ProcessBuilder((Seq(java, "-jar", "bulkhead-lab.jar") ++ args)*).directory(work.toFile)
      .redirectErrorStream(true)
    pb.environment().clear()
    pb.environment().putAll(Map("HOME" -> home.toString, "PATH" -> bin.toString, "LANG" -> "C.UTF-8").asJava)
    val p = pb.start()
    val out = String(p.getInputStream.readAllBytes())
    p.waitFor(120, TimeUnit.SECONDS) shouldBe true
    (p.exitValue(), out)

  private def zoo(stack: Stack, permits: Int): Served = stack.peer(Target.Zoo, Seq("--app", "undertow-semaphore",
    "--io-threads", "2", "--worker-threads", "64", "--permits", permits.toString, "--hold-ms", "100"))

  "bulkhead-lab.jar" should "diagnose a JVM from an empty folder with nothing installed, then check the fix it named" in {
    withClue(s"$jar is missing: it is built by ./mvnw -pl lab -am package\n")(Files.isRegularFile(jar) shouldBe true)
    val wrk = Seq("/usr/bin/wrk", "/usr/local/bin/wrk").map(Path.of(_)).find(Files.isExecutable)
      .getOrElse(fail("wrk is not installed: apt-get install wrk"))
    val root = Scratch.dir("bulkhead-user")
    val (work, home, bin) = (Files.createDirectories(root.resolve("my-service")),
      Files.createDirectories(root.resolve("home")), Files.createDirectories(root.resolve("bin")))
    Files.createSymbolicLink(bin.resolve("wrk"), wrk)
    Files.copy(jar, work.resolve("bulkhead-lab.jar"))
    val stack = Stack(Fixtures.launch, root.resolve("service"))

    val before = zoo(stack, permits = 4)
    val (first, firstRun) =
      try
        val (code, out) = lab(work, home, bin, "diagnose", "--pid", before.child.pid.toString, "--url",
          before.url("/work"), "--connections", "30", "--duration", "4s")
        withClue(out)(code shouldBe 0)
        out should not include "\tat "
        val dirs = Files.list(work.resolve("results")).iterator.asScala.toSeq
        dirs should have size 1
        (VerdictJson.read(dirs.head).fold(e => fail(e), identity), dirs.head)
      finally before.child.stop()
    first.verdict.cap.resource shouldBe Resource.Semaphore
    first.verdict.cap.size shouldBe Some(4.0)
    // 4 permits held 100 ms: 40 req/s by Little's law; the sampler's and wrk's share of 2 cores slows the holders.
    first.verdict.cap.perSecond should (be > 25.0 and be < 45.0)
    val fix = first.verdict.fix.getOrElse(fail(s"no fix: ${first.line}"))
    (fix.kind, fix.value) shouldBe (FixKind.LimitSize, Some(30.0))
    Seq(RecordJson.FileName, VerdictJson.FileName, "report.html").foreach(f => Files.exists(firstRun.resolve(f)) shouldBe true)

    val after = zoo(stack, permits = fix.value.get.toInt)
    try
      val expect = work.relativize(firstRun).toString
      val (code, out) = lab(work, home, bin, "diagnose", "--pid", after.child.pid.toString, "--url",
        after.url("/work"), "--connections", "30", "--duration", "4s", "--expect", expect)
      withClue(out)(code shouldBe 0)
      out should include("expected: predicted")
      val second = Files.list(work.resolve("results")).iterator.asScala.toSeq.filterNot(_ == firstRun).head
      val verdict = VerdictJson.read(second).fold(e => fail(e), identity)
      val e = verdict.expectation.getOrElse(fail(s"no expectation in ${second.resolve(VerdictJson.FileName)}"))
      e.predicted shouldBe first.verdict.next.get.perSecond
      e.measured shouldBe verdict.verdict.measured
      e.from shouldBe expect
      val (gate, gateOut) = lab(work, home, bin, "gate", work.relativize(second).toString)
      withClue(gateOut)(gate should (be(0) or be(1)))
      gateOut should include regex "prediction +(pass|FAIL)"
    finally after.child.stop()

    // The other commands load nothing the jar leaves out: a report rendered again, a dump read, the version.
    val dump = root.resolve("dump.txt")
    Files.writeString(dump, Fixtures.text("threaddump-deadlock-jdk25.txt"))
    val (reported, reportOut) = lab(work, home, bin, "report", work.relativize(firstRun).toString)
    withClue(reportOut)(reported shouldBe 0)
    val (analyzed, analyzeOut) = lab(work, home, bin, "analyze", dump.toString)
    // A deadlock is a failure the dump proves: analyze names it and exits 1.
    withClue(analyzeOut)((analyzed, analyzeOut.contains("DEADLOCK between")) shouldBe (1, true))
    // (on JDK 24+ the JVM first warns that Scala 3.3 calls sun.misc.Unsafe)
    lab(work, home, bin, "--version")._2.trim.linesIterator.toSeq.last should fullyMatch regex "bulkhead lab \\d+\\.\\d+\\.\\d+"

    files(home) shouldBe empty
    files(work).filterNot(_.startsWith("results")) shouldBe Seq("bulkhead-lab.jar")
  }
