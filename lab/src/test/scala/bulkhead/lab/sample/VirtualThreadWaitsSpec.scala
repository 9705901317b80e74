package bulkhead.lab.sample

import jdk.jfr.consumer.RecordingFile
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.Path
import scala.jdk.CollectionConverters.*

/**
 * Virtual threads read from JFR events, on a real recording: the zoo's virtual-parking app (JDK 25.0.3) at 20 clients,
 * each request a virtual thread `request-N` sleeping 4 x 25 ms, beside 2,000 virtual threads parking 20 ms forever,
 * recorded 3 s with the lab's events (`jcmd JFR.start settings=none` and the events of VirtualThreadEvents.Settings).
 */
class VirtualThreadWaitsSpec extends AnyFlatSpec with Matchers:
  private val events = RecordingFile.readAllEvents(
    Path.of(getClass.getResource("/fixtures/jfr-virtual-parking-c20-jdk25.jfr").toURI)).asScala.toSeq
  private val waits = VirtualThreadWaits()
  events.foreach(waits.add)
  private def nanos(i: java.time.Instant) = i.getEpochSecond * 1_000_000_000L + i.getNano
  private val middle =
    val times = events.map(e => nanos(e.getStartTime))
    (times.min + times.max) / 2

  "VirtualThreadWaits" should "show the requests' virtual threads asleep at an instant, as a dump would" in {
    val pool = waits.readingAt(middle).pools.find(_.pool == "request").getOrElse(fail("no request pool"))
    pool.virtual shouldBe true
    pool.threads should (be >= 12 and be <= 20)
    pool.busy shouldBe pool.threads
    pool.waits shouldBe Map(WaitKind.Sleeping.key -> pool.threads)
    pool.commonBusyFrame.get should include("Thread.sleep")
    pool.commonSite.get should startWith("bulkhead.zoo.VirtualParking")
  }

  it should "count the virtual threads alive from their starts and ends: the 20 requests, not the older parkers" in {
    waits.aliveAt(middle).get should (be >= 15 and be <= 22)
  }

  it should "keep only virtual threads' waits, and none of a platform thread's" in {
    val platform = events.filter(e => e.getEventType.getName == "jdk.ThreadPark" && !e.getThread.getBoolean("virtual"))
    platform should not be empty
    platform.flatMap(VirtualWait.of) shouldBe empty
    waits.size shouldBe events.count(_.getEventType.getName == "jdk.ThreadSleep")
  }
