package bulkhead.lab.load

import bulkhead.lab.process.Stack
import bulkhead.lab.model.MetricsReading
import bulkhead.lab.testkit.{Fixtures, Scratch}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.nio.file.Files
import scala.concurrent.duration.*

/** vegeta's open loop against the real service in its own JVM (vegeta built with Go the first time). */
@Slow
class VegetaRunSpec extends AnyFlatSpec with Matchers:

  "The open-loop driver" should "send at its rate and count every answer, as the service counted them" in {
    val dir = Scratch.dir("lab-vegeta")
    val service = Stack(Fixtures.launch, dir).service(Nil, heap = Stack.ServeHeap)
    try
      def served() = MetricsReading.parse(Stack.get(service.url("/metrics")).fold(e => fail(e), identity)).answered
      val before = served()
      val driver = VegetaDriver(50, 3.seconds, 5.seconds)
      driver.openLoop shouldBe true
      val figures = driver.run(service.url("/hello"), dir).fold(e => fail(e), identity)
      val sent = Files.readAllLines(dir.resolve(VegetaDriver.ResultsFile)).size
      sent shouldBe 150 +- 2
      figures.answers.byClass.keySet shouldBe Set("2xx")
      figures.answers.answered shouldBe sent
      figures.answers.unanswered shouldBe 0
      // The service's own counter of answers, read after the run: the same requests, counted on the other side.
      served() - before shouldBe figures.answers.answered.toDouble +- 1.0
      figures.throughput() shouldBe 50.0 +- 5.0
      figures.latency.count shouldBe figures.answers.answered
      figures.seconds.map(_.byClass.getOrElse("2xx", 0L)).sum shouldBe figures.answers.answered
    finally service.child.stop()
  }
