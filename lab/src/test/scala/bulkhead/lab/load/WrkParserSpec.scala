package bulkhead.lab.load

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import scala.io.Source
import scala.util.Using

/** Fixtures are the seeds' own printed wrk reports. */
class WrkParserSpec extends AnyFlatSpec with Matchers:
  private def fixture(name: String) =
    Using.resource(Source.fromResource(s"fixtures/$name"))(_.mkString)

  "WrkParser" should "read seed 000's pool-of-200 run" in {
    val r = WrkParser.parse(fixture("seed000-pool200.txt")).toOption.get
    (r.threads, r.connections, r.requests) shouldBe (2, 1000, 56104L)
    r.requestsPerSecond shouldBe 1864.76
    r.p50 shouldBe Some(455.18)
    r.p99 shouldBe Some(528.19)
    r.errors shouldBe SocketErrors(0, 1349, 14, 0)
    r.durationSeconds shouldBe 30.09
  }

  it should "convert seconds in the latency distribution (seed 001, default dispatcher, -c10000)" in {
    val r = WrkParser.parse(fixture("seed001-default-c10000.txt")).toOption.get
    r.connections shouldBe 10000
    r.percentilesMs(90) shouldBe 1080.0
    r.latencyMaxMs shouldBe 10000.0
    r.errors.connect shouldBe 9751
    r.durationSeconds shouldBe 60.0
    r.requestsPerSecond shouldBe 228.88
  }

  it should "read every seed report" in {
    val rates = Seq("seed000-pool1000.txt" -> 7439.64, "seed000-nonblocking.txt" -> 42946.15,
      "seed001-hello-c10000.txt" -> 57860.04, "seed001-pool200-c10000.txt" -> 1903.01)
    for (f, rate) <- rates do WrkParser.parse(fixture(f)).map(_.requestsPerSecond) shouldBe Right(rate)
  }

  it should "refuse what is not a wrk report, saying so" in {
    WrkParser.parse("unable to connect to 127.0.0.1:1 Connection refused").left.toOption.get should
      startWith("not a wrk report")
  }
