package bulkhead.lab.report

import bulkhead.lab.testkit.{Fixtures, Scratch}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.Files

/**
 * Stacks recorded by async-profiler (`bench hello --profile`, JDK 25) in bulkhead and in Spray, one per line as
 * async-profiler collapses them: a thread woken in a write, Pekko's and Spray's parsers, a socket write, a stream's
 * materialisation, both listeners' accepts, a parked pool thread, the stream interpreter and the JIT.
 */
class ProfileStagesSpec extends AnyFlatSpec with Matchers:
  private val text = Fixtures.text("async-profiler-collapsed-bulkhead-spray-jdk25.txt")
  private val stacks = text.linesIterator.map(_.split(' ').head.split(';').toSeq).toSeq

  "ProfileStages" should "place each recorded stack in the stage of its work, Pekko's and Spray's alike" in {
    stacks.map(ProfileStages.stageOf) shouldBe Seq("threads parked and woken", "parsing", "parsing", "socket write",
      "connection set-up (actors, stream materialisation)", "accept", "accept", "threads parked and woken",
      "stream interpreter", "JIT compiler")
  }

  it should "count a thread woken inside a write as waking, not as the write" in {
    val woken = stacks.head
    woken.exists(_.contains("TcpConnection.doWrite")) shouldBe true
    ProfileStages.stageOf(woken) shouldBe "threads parked and woken"
  }

  it should "sum a file's samples per stage and split a CPU per request in their shares" in {
    val file = Scratch.file("collapsed", ".txt")
    Files.writeString(file, text)
    val counts = ProfileStages.read(file).fold(e => fail(e), identity)
    counts.values.sum shouldBe text.linesIterator.map(_.split(' ').last.toLong).sum
    counts("parsing") shouldBe 381L
    val table = ProfileStages.table(Seq(("a", 100.0, counts)))
    table should include(f"| parsing | ${100.0 * 381 / counts.values.sum}%.1f")
    table.linesIterator.toSeq.last shouldBe "| total | 100.0 |"
  }

  it should "say there is nothing to read where no profile was written" in {
    ProfileStages.read(Scratch.dir("none").resolve("collapsed.txt")).isLeft shouldBe true
  }
