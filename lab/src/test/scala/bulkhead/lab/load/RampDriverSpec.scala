package bulkhead.lab.load

import bulkhead.lab.process.Stack
import bulkhead.lab.scenario.Load
import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.Files
import scala.concurrent.duration.*

/** JMeter's own engine ramping clients against the real service in its own JVM. */
class RampDriverSpec extends AnyFlatSpec with Matchers:

  "The ramp driver" should "ramp JMeter's clients up in steps and record every second" in {
    val dir = Files.createTempDirectory("lab-ramp")
    val stack = Stack(Fixtures.launch, dir)
    val service = stack.service(Seq("--blocking-pool-size", "8"), heap = "-Xmx256m")
    try
      // Steps of 2 s: a whole second at 2 clients even when JMeter's first request is slow.
      val result = RampDriver.run(Load.Ramp(clients = 4, rampUp = 4.seconds, rampSteps = 2, hold = 3.seconds),
        service.url("/work/pool?ms=50"), dir, summaryEverySeconds = 1)
      result.answers.byClass.keySet shouldBe Set("2xx")
      result.answers.unanswered shouldBe 0
      result.answers.answered should be > 0L
      val clients = result.seconds.map(_.clients)
      clients.max shouldBe 4
      val firstAtHalf = clients.indexOf(2)
      firstAtHalf should be >= 0
      firstAtHalf should be < clients.indexOf(4)
      result.latency.p50Ms should be >= 50.0
    finally service.child.stop()
  }
