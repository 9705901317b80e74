package bulkhead.service.http

import org.apache.pekko.event.LoggingAdapter
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import scala.collection.mutable

/** The HTTP layer's log: clients' mistakes at most a line an interval, with the count; the service's errors all. */
class ClientWarningLogSpec extends AnyFlatSpec with Matchers:
  /** A log that keeps what it was given, by level. */
  private final class Kept extends LoggingAdapter:
    val lines = mutable.ArrayBuffer[String]()
    def isErrorEnabled = true
    def isWarningEnabled = true
    def isInfoEnabled = true
    def isDebugEnabled = true
    def notifyError(message: String): Unit = lines += s"ERROR $message"
    def notifyError(cause: Throwable, message: String): Unit = lines += s"ERROR $message"
    def notifyWarning(message: String): Unit = lines += s"WARN $message"
    def notifyInfo(message: String): Unit = lines += s"INFO $message"
    def notifyDebug(message: String): Unit = lines += s"DEBUG $message"

  "ClientWarningLog" should "write one warning of a flood, with the count, and the next only after the interval" in {
    val kept = Kept()
    val log = ClientWarningLog(kept, intervalNanos = 200_000_000L)
    (1 to 4000).foreach(i => log.warning("Illegal header: Illegal 'date' header: {}\n^", s"yesterday $i"))
    kept.lines shouldBe Seq("WARN Illegal header: Illegal 'date' header: yesterday 1 [1 client warnings since the " +
      "last written, at most one a second]")
    Thread.sleep(250)
    log.warning("Sending an 2xx 'early' response")
    kept.lines should have size 2
    kept.lines.last should startWith("WARN Sending an 2xx 'early' response [4000 client warnings since")
  }

  it should "pass the service's own errors and debug lines as they come" in {
    val kept = Kept()
    val log = ClientWarningLog(kept)
    (1 to 3).foreach(_ => log.error("request failed"))
    (1 to 3).foreach(_ => log.debug("rejected a malformed request"))
    kept.lines.count(_.startsWith("ERROR")) shouldBe 3
    kept.lines.count(_.startsWith("DEBUG")) shouldBe 3
  }
