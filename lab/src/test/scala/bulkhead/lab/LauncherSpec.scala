package bulkhead.lab

import bulkhead.lab.testkit.Scratch
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.nio.file.attribute.PosixFilePermissions
import java.nio.file.{Files, Path}
import java.util.concurrent.TimeUnit
import scala.jdk.CollectionConverters.*

/**
 * The launcher's set-up of the repository (`./bulkhead bench` here) on a machine without its tools, as root with
 * apt-get: the policy that keeps packages' daemons from starting is removed on every way out, a failed `apt-get
 * update` and Ctrl-C included. The PATH holds only what the launcher runs before installing, an `id` that says root
 * and an apt-get that fails or hangs; the policy goes to a file of the test's (`BULKHEAD_POLICY_RC`).
 */
@Slow
class LauncherSpec extends AnyFlatSpec with Matchers:
  private val launcher = Path.of("..", "bulkhead").toAbsolutePath.normalize

  private def script(dir: Path, name: String, body: String): Unit =
    Files.setPosixFilePermissions(Files.writeString(dir.resolve(name), s"#!/bin/sh\n$body\n"),
      PosixFilePermissions.fromString("rwxr-xr-x"))

  /** A machine without redis-server, wrk or nginx, whose apt-get does `update` (fail, hang) and notes the policy. */
  private def machine(update: String): (Path, Path, Path) =
    val dir = Scratch.dir("launcher")
    val bin = Files.createDirectories(dir.resolve("bin"))
    for tool <- Seq("bash", "dirname", "awk", "chmod", "rm", "cat", "sleep") do
      Files.createSymbolicLink(bin.resolve(tool), Path.of(s"/usr/bin/$tool").toRealPath())
    script(bin, "id", "echo 0")
    val policy = dir.resolve("policy-rc.d")
    val seen = dir.resolve("policy-was-there")
    script(bin, "apt-get", s"""[ -e "$policy" ] && : > "$seen"\n[ "$$1" = update ] && $update\nexit 0""")
    (bin, policy, seen)

  private def start(bin: Path, policy: Path): Process =
    val pb = ProcessBuilder("/usr/bin/setsid", "/bin/bash", launcher.toString, "bench", "hello").redirectErrorStream(true)
    pb.environment().put("PATH", bin.toString)
    pb.environment().put("BULKHEAD_POLICY_RC", policy.toString)
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"))
    pb.start()

  "The launcher's set-up" should "remove the daemon policy when apt-get update fails, and say so" in {
    val (bin, policy, seen) = machine("exit 100")
    val p = start(bin, policy)
    p.waitFor(60, TimeUnit.SECONDS) shouldBe true
    val out = String(p.getInputStream.readAllBytes())
    withClue(out) {
      p.exitValue() shouldBe 2
      out should include("apt-get update or install of redis-server wrk nginx-light failed (exit 100)")
      Files.exists(seen) shouldBe true
      Files.exists(policy) shouldBe false
    }
  }

  it should "remove it on Ctrl-C while apt-get runs" in {
    val (bin, policy, seen) = machine("sleep 60")
    val p = start(bin, policy)
    try
      val until = System.nanoTime() + 60_000_000_000L
      while !Files.exists(seen) && p.isAlive && System.nanoTime() < until do Thread.sleep(50)
      withClue("apt-get never ran with the policy in place: ")(Files.exists(seen) shouldBe true)
      // Ctrl-C reaches the terminal's whole process group: the launcher and the apt-get it waits for.
      ProcessBuilder("kill", "-INT", "--", s"-${p.pid()}").start().waitFor()
      p.waitFor(30, TimeUnit.SECONDS) shouldBe true
      p.exitValue() shouldBe 130
      Files.exists(policy) shouldBe false
    finally
      p.descendants().iterator().asScala.foreach(_.destroyForcibly())
      p.destroyForcibly()
  }
