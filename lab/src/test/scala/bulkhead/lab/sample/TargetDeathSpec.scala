package bulkhead.lab.sample

import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/** How a dead JVM is told: its exit code's signal and its hs_err log, read from a real one (JDK 25, SIGSEGV). */
class TargetDeathSpec extends AnyFlatSpec with Matchers:
  "HsErr" should "read the fatal signal and the problematic frame of a real hs_err log" in {
    HsErr.read(Fixtures.text("hs-err-sigsegv-unsafe-jdk25.log")) shouldBe
      (Some("SIGSEGV"), Some("V [libjvm.so+0x123632d] Unsafe_PutLong+0xad"))
    HsErr.read("not a log") shouldBe (None, None)
  }

  it should "look for the log where -XX:ErrorFile puts it, then in the JVM's directory, then in /tmp" in {
    val self = ProcessHandle.current().pid()
    val found = HsErr.candidates(self)
    found.last.toString shouldBe s"/tmp/hs_err_pid$self.log"
    found should contain(java.nio.file.Path.of(System.getProperty("user.dir")).resolve(s"hs_err_pid$self.log"))
  }

  "TargetDeath" should "name the signal of an exit code, and say the death in a sentence" in {
    TargetDeath.signalOf(134) shouldBe Some("SIGABRT")
    TargetDeath.signalOf(137) shouldBe Some("SIGKILL")
    TargetDeath.signalOf(1) shouldBe None
    TargetDeath(3.4, "exited", Some(134), Some("SIGABRT"), Some("SIGSEGV"), Some("V [libjvm.so] f"), Some("/x/hs.log"))
      .sentence shouldBe "died at 3.4 s: exited on SIGABRT (exit code 134) after a fatal SIGSEGV in V [libjvm.so] f; " +
      "hs_err: /x/hs.log"
  }
