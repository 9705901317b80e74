package bulkhead.lab.sample

import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/**
 * A JVM's safepoints read from its log of VM operations, on a real one: `VM.events log=vmops` of a JDK 25.0.3 JVM
 * that took one `ThreadMXBean.dumpAllThreads(true, true)` 1.482 s after it started (handshakes before it).
 */
class VmOperationsSpec extends AnyFlatSpec with Matchers:
  private val log = Fixtures.text("vm-events-vmops-jdk25.txt")

  "VmOperations" should "sum the safepoint operations since an instant, leaving handshakes and earlier ones out" in {
    val (ms, count) = VmOperations.safepointsSince(log, 1.4).get
    count shouldBe 1
    ms shouldBe 9.0 +- 0.001
    VmOperations.safepointsSince(log, 1.5) shouldBe None
    VmOperations.safepointsSince("not a log", 0) shouldBe None
  }
