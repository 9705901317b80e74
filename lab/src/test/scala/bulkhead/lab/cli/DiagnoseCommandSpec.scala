package bulkhead.lab.cli

import bulkhead.lab.diagnose.Diagnosis
import bulkhead.lab.model.Target
import bulkhead.lab.process.Stack
import bulkhead.lab.record.RecordJson
import bulkhead.lab.testkit.{Fixtures, Scratch}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import scala.concurrent.duration.*

/**
 * `lab diagnose` on a JVM the lab did not write and knows nothing about: Jetty 12 (from Maven Central) with its
 * QueuedThreadPool sized by its own flag, loaded by real wrk while the lab samples it by pid.
 */
@Slow
class DiagnoseCommandSpec extends AnyFlatSpec with Matchers:
  "lab diagnose" should "name Jetty's worker pool, with its size, as the cap of blocking work" in {
    val dir = Scratch.dir("diagnose-jetty")
    val jetty = Stack(Fixtures.launch, dir).peer(Target.Jetty, Seq("--max-threads", "12", "--min-threads", "12"))
    try
      val options = DiagnoseCommand.Options(jvm = JvmFlags(pid = Some(jetty.child.pid)),
        url = jetty.url("/work/pool?ms=100"), connections = 40, duration = 6.seconds, every = 1.second)
      val record = DiagnoseCommand.run(options, dir, _ => ()).fold(e => fail(e), identity)
      val verdict = Diagnosis(record)
      verdict.name shouldBe "pool qtp"
      // 12 threads, one of them Jetty's acceptor and one its selector: 10 hold requests of 100 ms.
      verdict.predicted shouldBe (100.0 +- 15.0)
      // Threads caught between two requests lower the busy count, and more so when wrk and the sampler share the
      // machine's cores with Jetty: the ratio is held within 20 %, not the diagnosis's 5 % of noise.
      verdict.ratio shouldBe (1.0 +- 0.2)
      verdict.fix.map(_.sentence).get should include("QueuedThreadPool maxThreads")
      RecordJson.read(dir.resolve(RecordJson.FileName)).isRight shouldBe true
    finally jetty.child.stop()
  }
