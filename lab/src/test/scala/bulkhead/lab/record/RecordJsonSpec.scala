package bulkhead.lab.record

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.{Files, Path}

/** result.json of recorded real runs: read, written and read back unchanged; a stranger's JSON refused. */
class RecordJsonSpec extends AnyFlatSpec with Matchers:
  private def fixture(name: String) = Path.of(getClass.getResource(s"/fixtures/records/$name/result.json").toURI)

  "RecordJson" should "read a recorded run and write it back unchanged" in {
    val record = RecordJson.read(fixture("pool-4-queueing")).fold(e => fail(e), identity)
    record.info.name shouldBe "pool-4"
    record.samples should not be empty
    val dir = Files.createTempDirectory("record")
    RecordJson.read(RecordJson.write(record, dir)).fold(e => fail(e), identity) shouldBe record
  }

  it should "read every result under a run's directory" in {
    val dir = fixture("pool-4-queueing").getParent.getParent
    RecordJson.readAll(dir).fold(e => fail(e), identity).map(_.info.name).toSet should contain("pool-4")
  }

  it should "refuse a file that is not a result, naming it" in {
    val file = Files.createTempFile("not-a-result", ".json")
    Files.writeString(file, """{"hello": 1}""")
    RecordJson.read(file).left.toOption.get should include(file.toString)
  }
