package bulkhead.lab.sample

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.util.concurrent.TimeUnit

/** A process's end as the watch tells it: nothing while it runs, then its exit code and signal when it is a child. */
class ProcessDeathSpec extends AnyFlatSpec with Matchers:
  "ProcessDeath" should "see a child running, then killed, with its exit code and signal and no hs_err log" in {
    val child = ProcessBuilder("sleep", "60").start()
    try
      val death = ProcessDeath(child.pid, Some(child))
      death.alive shouldBe true
      death.check(1.0) shouldBe None
      child.destroyForcibly().waitFor(10, TimeUnit.SECONDS)
      val d = death.check(2.5).getOrElse(fail("no death seen"))
      (d.second, d.exitCode, d.signal, d.hsErr) shouldBe (2.5, Some(137), Some("SIGKILL"), None)
      d.sentence should startWith("died at 2.5 s: exited on SIGKILL (exit code 137)")
    finally child.destroyForcibly()
  }

  it should "see a process it did not start by /proc alone, without an exit code" in {
    val other = ProcessBuilder("sleep", "60").start()
    try
      val death = ProcessDeath(other.pid)
      death.check(0.5) shouldBe None
      other.destroyForcibly().waitFor(10, TimeUnit.SECONDS)
      death.check(1.0).map(d => (d.exitCode, d.signal)) shouldBe Some((None, None))
    finally other.destroyForcibly()
  }
