package bulkhead.lab.diagnose

import bulkhead.lab.sample.{JsonThreadDump, PoolSample, Sample, ThreadDump, WaitGraph}
import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.{Files, Path}
import scala.jdk.CollectionConverters.*

/** Which reader claims each wait of the recorded real dumps: decided once, in order, first claim wins. */
class WaitReaderSpec extends AnyFlatSpec with Matchers:
  private val dir = Path.of(getClass.getResource("/fixtures").toURI)

  /** Every recorded dump (text and JSON), read. */
  private val dumps: Seq[(String, ThreadDump)] =
    Files.list(dir).iterator().asScala.map(_.getFileName.toString).filter(_.startsWith("threaddump-")).toSeq.sorted
      .map { name =>
        val text = Fixtures.text(name)
        name -> (if name.endsWith(".json") then JsonThreadDump.parse(text).fold(e => fail(s"$name: $e"), identity)
          else ThreadDump.parse(text))
      }

  /** A run view of one sample: the dump's pools and resources, 30 clients. */
  private def view(dump: ThreadDump) =
    RunView(Seq(Sample(0, PoolSample.of(dump), None, None, None, None, None, None, resources = WaitGraph.of(dump))),
      answeredRate = 10, clients = 30, path = "/work")

  "Every wait in the recorded dumps" should "get exactly one kind: the first reader of FromWaits that claims it" in {
    dumps.size should be >= 20
    for (name, dump) <- dumps do
      val run = view(dump)
      val waits = WaitResources.of(run)
      withClue(name) {
        waits.foreach(w => WaitReader.kindOf(w) shouldBe ResourceReader.FromWaits.find(_.claims(w)))
        waits.foreach(w => WaitReader.kindOf(w) should not be empty)
        // No reader reads a wait another one claimed first.
        val read = ResourceReader.FromWaits.flatMap(r => r.read(run).flatMap(_.key).map(_ -> r))
        read.groupBy(_._1).values.foreach(_ should have size 1)
        read.foreach((key, r) => waits.find(_.key == key).flatMap(WaitReader.kindOf(_)) shouldBe Some(r))
      }
  }

  it should "be claimed as its shape says, in the dumps of services of other frameworks" in {
    def kinds(name: String) =
      WaitResources.of(view(dumps.find(_._1 == name).get._2)).map(w => WaitReader.kindOf(w).get).toSet
    kinds("threaddump-zoo-undertow-lock-jdk25.txt") shouldBe Set(LockReader)
    kinds("threaddump-zoo-undertow-reentrant-jdk25.txt") shouldBe Set(LockReader)
    kinds("threaddump-zoo-undertow-semaphore-jdk25.txt") shouldBe Set(SemaphoreReader)
    kinds("threaddump-zoo-httpclient-pool-jdk25.txt") shouldBe Set(ConnectionPoolReader)
    kinds("threaddump-zoo-jedis-held-jdk25.txt") shouldBe Set(ObjectPoolReader)
    kinds("threaddump-zoo-async-client-jdk25.txt") shouldBe Set(FutureReader)
    kinds("threaddump-zoo-future-pool-jdk25.txt") shouldBe Set(FutureReader)
  }

  it should "go to the first claim when two kinds' shapes fit: a pool's lease is a future's wait, a pool first" in {
    // HttpClient 5's classic lease parks in a BasicFuture with threads inside the pool: not a completion, so the
    // connection pool's reader claims it, though the object pool's would too.
    val Seq(lease) = WaitResources.of(view(dumps.find(_._1 == "threaddump-zoo-httpclient-pool-jdk25.txt").get._2))
    ObjectPoolReader.claims(lease) shouldBe true
    FutureReader.claims(lease) shouldBe false
    WaitReader.kindOf(lease) shouldBe Some(ConnectionPoolReader)
  }
