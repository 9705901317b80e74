package bulkhead.lab.run

import bulkhead.lab.cli.{DiagnoseCommand, JvmFlags}
import bulkhead.lab.testkit.Scratch
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.tags.Slow
import org.scalatest.matchers.should.Matchers

import java.nio.file.{Files, Path}
import java.util.concurrent.TimeUnit
import scala.concurrent.duration.*

/**
 * A target that dies during a run ends it with that verdict: `DiesMidRun` (a JDK HTTP server that crashes of SIGSEGV
 * 3 s after it serves, writing an hs_err log) loaded with wrk and sampled by `lab diagnose --pid`.
 */
@Slow
class TargetWatchSpec extends AnyFlatSpec with Matchers:
  private val java = Path.of(System.getProperty("java.home"), "bin", "java").toString
  private val source = Path.of(getClass.getResource("/jvm/DiesMidRun.java").toURI).toString

  "A run whose target crashes" should "end at its death with the fatal signal and the hs_err path, and no figure after it" in {
    val cwd = Scratch.dir("dies-mid-run")
    val portFile = cwd.resolve("port")
    val jvm = ProcessBuilder(java, "-Xmx64m", "-XX:-CreateCoredumpOnCrash", source, portFile.toString, "3")
      .directory(cwd.toFile).redirectErrorStream(true).redirectOutput(cwd.resolve("out.txt").toFile).start()
    try
      val deadline = System.nanoTime() + 60_000_000_000L
      while !Files.exists(portFile) && jvm.isAlive && System.nanoTime() < deadline do Thread.sleep(100)
      withClue(Files.readString(cwd.resolve("out.txt")))(Files.exists(portFile) shouldBe true)
      val url = s"http://127.0.0.1:${Files.readString(portFile).trim}/"
      val dir = Scratch.dir("diagnose-dies")
      val options = DiagnoseCommand.Options(JvmFlags(pid = Some(jvm.pid)), url = url, connections = 10, threads = 1,
        duration = 60.seconds, every = 1.second)
      val record = DiagnoseCommand.run(options, dir, _ => ()).fold(e => fail(e), identity)
      // Dead for the lab; the JDK's reaper may take a moment to collect the exit status after the run ended.
      jvm.waitFor(10, TimeUnit.SECONDS) shouldBe true
      val death = record.death.getOrElse(fail("no death recorded"))
      death.fatal shouldBe Some("SIGSEGV")
      death.hsErr shouldBe Some(cwd.resolve(s"hs_err_pid${jvm.pid}.log").toString)
      death.sentence should include("SIGSEGV")
      // The run ended at the death, long before the 60 s it was asked for; none of wrk's figures is kept.
      record.load.durationSeconds shouldBe death.second
      death.second should be < 60.0
      record.load.answers.answered shouldBe 0
      record.samples.map(_.second).foreach(_ should be < death.second)
      Files.exists(dir.resolve("result.json")) shouldBe true
    finally
      jvm.destroyForcibly()
      jvm.waitFor(10, TimeUnit.SECONDS)
  }
