package bulkhead.lab.sample

import bulkhead.lab.testkit.Scratch
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.{Files, Path}
import java.time.Instant

/**
 * The safe source's life over a run, on a recorded JFR file standing for what the JVM's recording gives back (the zoo's
 * virtual-parking app at 20 clients, JDK 25.0.3): opened once, read back, each sample settled with the virtual threads
 * in a recorded wait at its instant, closed at the end.
 */
class VirtualSourceSpec extends AnyFlatSpec with Matchers:
  private val recorded = Path.of(getClass.getResource("/fixtures/jfr-virtual-parking-c20-jdk25.jfr").toURI)

  /** A recording that gives back a copy of the recorded file each time (the source removes what it reads). */
  private final class Recorded(startsWith: Either[String, Unit] = Right(())) extends VirtualThreadEvents:
    var started, collected, stopped = 0
    def start(): Either[String, Unit] = { started += 1; startsWith }
    def collect(since: Instant): Either[String, Path] =
      collected += 1
      val copy = Scratch.file("recorded", ".jfr")
      Files.copy(recorded, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING)
      Right(copy)
    def stop(): Unit = stopped += 1

  private val middle =
    val events = jdk.jfr.consumer.RecordingFile.readAllEvents(recorded)
    val times = scala.jdk.CollectionConverters.ListHasAsScala(events).asScala.map { e =>
      e.getStartTime.getEpochSecond * 1_000_000_000L + e.getStartTime.getNano
    }
    (times.min + times.max) / 2

  private def empty(second: Double) = Sample(second, Nil, None, None, None, None, None, None)

  "VirtualSource" should "open once, settle each sample at the end with its virtual threads, and stop the recording" in {
    val recording = Recorded()
    val source = VirtualSource(() => recording)
    source.open(0.0)
    source.open(1.0)
    source.sampled(middle)
    source.close()
    (recording.started, recording.stopped) shouldBe (1, 1)
    recording.collected should be >= 1
    val done = source.complete(empty(1.0), middle)
    done.pools.find(_.pool == "request").map(p => (p.virtual, p.busy == p.threads)) shouldBe Some((true, true))
    done.virtualThreads.get should be > 10
    source.describe(SamplingSource("25.0.3", SamplingSource.ClassicDump, Some(SamplingSource.JfrAttach), "r"))
      .virtualFrom shouldBe Some(0.0)
  }

  it should "say why the virtual threads go unseen when the recording cannot start, and leave samples as they are" in {
    val source = VirtualSource(() => Recorded(Left("JFR.start refused")))
    source.open(0.0)
    source.sampled(middle)
    source.close()
    source.complete(empty(1.0), middle) shouldBe empty(1.0)
    val said = source.describe(SamplingSource("25.0.3", SamplingSource.ClassicDump, Some(SamplingSource.JfrAttach), "r"))
    (said.virtual, said.reason) shouldBe (None, "r; virtual threads unseen: JFR.start refused")
  }
