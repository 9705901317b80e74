package bulkhead.lab.sample

import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/** Which dump a JVM sampled by pid gets, and why, by its JDK, its virtual threads and the user's choice. */
class SamplingSourceSpec extends AnyFlatSpec with Matchers:
  private def v(text: String) = JdkVersion.parse(text)
  private def hazards(jdk: String) = DumpHazards.Known.of(DumpKind.Json, v(jdk).get)

  "A JVM on an affected JDK" should "get Thread.print and JFR events for its virtual threads, the reason naming the defect" in {
    val s = SamplingSource.byPid(v("25.0.3"), hazards("25.0.3"), virtual = true, allowRisky = false)
    (s.platform, s.virtual, s.risky) shouldBe (SamplingSource.ClassicInsteadOfJson, Some(SamplingSource.JfrAttach), false)
    s.reason should include("JDK-8364343")
    s.reason should include(SamplingSource.AllowFlag)
  }

  it should "get the JSON dump with --allow-risky-dumps, recorded as risky" in {
    val s = SamplingSource.byPid(v("25.0.3"), hazards("25.0.3"), virtual = true, allowRisky = true)
    (s.platform, s.risky) shouldBe (SamplingSource.JsonDump, true)
  }

  "A JVM on JDK 21 or 17, or of unknown version" should "get the JSON dump, Thread.print, Thread.print" in {
    SamplingSource.byPid(v("21.0.5"), Nil, virtual = true, allowRisky = false).platform shouldBe SamplingSource.JsonDump
    SamplingSource.byPid(v("17.0.15"), Nil, virtual = false, allowRisky = false).platform shouldBe
      SamplingSource.ClassicDump
    SamplingSource.byPid(None, Nil, virtual = true, allowRisky = true).platform shouldBe SamplingSource.ClassicDump
  }

  "A classic dump" should "show the virtual-thread machinery, which a service that only loads the class has too" in {
    def machinery(name: String) = SamplingSource.showsVirtualThreadMachinery(ThreadDump.parse(Fixtures.text(name)))
    machinery("threaddump-virtual200-c20-jdk25.txt") shouldBe true
    machinery("threaddump-blocking-soap-jdk25.txt") shouldBe true
    machinery("threaddump-default2-jdk17.txt") shouldBe false
  }

  "The scheduler" should "tell a JVM that ran virtual threads from one that only loaded their class" in {
    SamplingSource.schedulerStarted(Fixtures.text("vthread-scheduler-virtual200-c20-jdk25.txt")) shouldBe true
    SamplingSource.schedulerStarted(Fixtures.text("vthread-scheduler-unused-jdk25.txt")) shouldBe false
    SamplingSource.schedulerState(Fixtures.text("vthread-scheduler-virtual200-c20-jdk25.txt")) shouldBe
      Some(SchedulerState(carriers = 2, steals = 24355, busy = 20))
    SamplingSource.schedulerState("12345:\nUnknown diagnostic command") shouldBe None
  }
