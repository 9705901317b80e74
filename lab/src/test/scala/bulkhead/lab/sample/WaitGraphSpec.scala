package bulkhead.lab.sample

import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/** Resources found in recorded real dumps from what their threads wait on. */
class WaitGraphSpec extends AnyFlatSpec with Matchers:
  private def dump(name: String) = ThreadDump.parse(Fixtures.text(name))

  "WaitGraph" should "find a monitor's holder by the lock it owns, and that the holder queues on the other lock" in {
    val rs = WaitGraph.of(dump("threaddump-deadlock-jdk25.txt"))
    val transfers = rs.filter(_.blocker == "java.lang.Object")
    transfers.map(_.waiters).sum shouldBe 2
    transfers.foreach { r =>
      r.holders shouldBe 1
      // Each holder is blocked on the other lock: the chain goes on from here (a deadlock, here).
      r.holderWaits.keys.head should startWith("monitor java.lang.Object")
    }
  }

  it should "find no resource in a dump whose busy threads only sleep" in {
    WaitGraph.of(dump("threaddump-jetty-qtp20-c50-1-jdk25.txt")) shouldBe empty
  }
