package bulkhead.lab.sample

import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/** Deadlocks in a recorded dump of two threads that each hold the monitor the other waits for (JDK 25). */
class DeadlocksSpec extends AnyFlatSpec with Matchers:
  private val text = Fixtures.text("threaddump-deadlock-jdk25.txt")

  "Deadlocks" should "take the JVM's own report where the dump has one" in {
    Deadlocks.of(ThreadDump.parse(text)) shouldBe Seq(Seq("transfer-worker-1", "transfer-worker-2"))
  }

  it should "find the same cycle from the monitors' owners in a dump without the report (as a JSON dump is)" in {
    val withoutReport = text.linesIterator.takeWhile(l => !l.startsWith("Found one Java-level deadlock")).mkString("\n")
    val dump = ThreadDump.parse(withoutReport)
    dump.deadlocks shouldBe empty
    Deadlocks.of(dump) shouldBe Seq(Seq("transfer-worker-1", "transfer-worker-2"))
  }

  it should "find none where threads wait on a monitor whose owner waits on nothing" in {
    Deadlocks.of(ThreadDump.parse(Fixtures.text("threaddump-zoo-undertow-lock-jdk25.txt"))) shouldBe empty
  }
