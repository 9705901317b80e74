package bulkhead.lab.load

import bulkhead.lab.process.Stack
import bulkhead.lab.scenario.Load
import bulkhead.lab.testkit.{Fixtures, Scratch}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.nio.file.Files
import scala.concurrent.duration.*

/** JMeter's own engine ramping clients against the real service in its own JVM. */
@Slow
class RampDriverSpec extends AnyFlatSpec with Matchers:

  "The ramp driver" should "ramp JMeter's clients up in steps and record every second" in {
    val dir = Scratch.dir("lab-ramp")
    val stack = Stack(Fixtures.launch, dir)
    val service = stack.service(Seq("--blocking-pool-size", "8"), heap = Stack.ServeHeap)
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

  it should "count JMeter's requests without an answer in the second they ended, as it counts the answers" in {
    val jtl = Scratch.file("ramp", ".jtl")
    try
      // JMeter's columns as RampDriver asks for them; a code that is not a number is JMeter's "no answer".
      Files.writeString(jtl, Seq("timeStamp,elapsed,responseCode,success,allThreads", "1000,50,200,true,2",
        "1100,60,200,true,2", "1500,5000,Non HTTP response code: java.net.SocketTimeoutException,false,2",
        "2100,50,200,true,4", "2200,40,Non HTTP response code: org.apache.http.NoHttpResponseException,false,4")
        .mkString("", "\n", "\n"))
      val figures = RampDriver.read(jtl, rampUpMillis = 0, clients = 4)
      figures.answers.readErrors shouldBe 2
      figures.seconds.map(s => s.second -> s.unanswered) shouldBe
        Seq(0 -> Some(0L), 1 -> Some(1L), 5 -> Some(1L))
      figures.seconds.map(_.byClass.getOrElse("2xx", 0L)).sum shouldBe 3
    finally Files.delete(jtl)
  }
