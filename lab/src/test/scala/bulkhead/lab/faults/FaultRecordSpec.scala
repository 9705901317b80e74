package bulkhead.lab.faults

import bulkhead.lab.load.{RequestLog, RequestOutcome}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.{Files, Path}

/** A fault run's record: its figures are a load driver's, and it reads back what it wrote and what older runs wrote. */
class FaultRecordSpec extends AnyFlatSpec with Matchers:
  private val none = Resources(40, 20.0)
  /** Two seconds of answers: 100 OK at 1..100 ms in the first, a 503 and a timeout in the second. */
  private val log =
    (1 to 100).map(i => RequestLog.Entry("steady", 0.0, 0.5, i.toDouble, RequestOutcome.Status(200), None)) ++
      Seq(RequestLog.Entry("steady", 1.0, 1.2, 2.0, RequestOutcome.Status(503), Some("1")),
        RequestLog.Entry("steady", 1.0, 1.5, 500.0, RequestOutcome.Timeout, None))
  private val record = FaultRecord.of("reset", 0.8, 1.1, 2.0, log, 16, Map.empty, none, none, usersEnded = true)

  "FaultRecord" should "take each second's OK latencies from a histogram, and none from a second without OK" in {
    record.seconds.head.okP50Ms shouldBe (50.0 +- 0.05)
    record.seconds.head.okP99Ms shouldBe (99.0 +- 0.1)
    record.seconds(1).okP50Ms.isNaN shouldBe true
  }

  it should "hold the run's figures as every load driver gives them" in {
    val load = record.load.get
    load.answers.byClass shouldBe Map("2xx" -> 100L, "5xx" -> 1L)
    load.answers.timeouts shouldBe 1
    load.latency.count shouldBe 101
    load.seconds.map(_.unanswered) shouldBe Seq(Some(0L), Some(1L))
    load.clients shouldBe 16
  }

  it should "read back what it wrote, figures included" in {
    val file = Files.createTempFile("fault-record", ".json")
    try
      Files.writeString(file, record.toJson)
      val read = FaultRecord.read(file)
      read.load shouldBe record.load
      read.totals shouldBe record.totals
      read.okPerTenth shouldBe record.okPerTenth
    finally Files.delete(file)
  }

  it should "read a run recorded before it held figures" in {
    val old = FaultRecord.read(Path.of(getClass.getResource("/fixtures/faults/reset.json").toURI))
    old.load shouldBe None
    old.seconds should not be empty
  }
