package bulkhead.lab.model

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/** Little's law as the lab states its bounds: the seeds' own figures (DESIGN.md's table) as the cases. */
class LittlesLawSpec extends AnyFlatSpec with Matchers:

  "Little's law" should "bound a pool by its threads over the time each holds a request" in {
    // Seed 000, row 3: a pool of 200 threads blocking 100 ms each serves at most 2,000 req/s.
    LittlesLaw.pool("blocking-pool", 200, 0.1) shouldBe Bound("blocking-pool: 200 threads / 0.10 s", 2000.0)
  }

  it should "bound a closed loop by its clients over the latency each waits" in {
    // Seed 004, row 9: 20 JMeter clients on a 1 s third party, at most 20 req/s.
    LittlesLaw.clients(20, 1.0) shouldBe Bound("20 clients / 1 s", 20.0)
  }

  it should "take the smallest cap as the bound" in {
    // Row 13: 40 clients on 1 s, the work queue's 25 threads on 1 s: the queue caps it at 25, not the clients' 40.
    val queue = LittlesLaw.pool("work-queue", 25, 1.0)
    LittlesLaw.bound(Seq(LittlesLaw.clients(40, 1.0), queue)) shouldBe queue
  }
