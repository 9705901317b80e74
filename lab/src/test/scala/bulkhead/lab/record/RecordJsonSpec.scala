package bulkhead.lab.record

import bulkhead.lab.model.{CapName, Resource}
import bulkhead.lab.scenario.SeedFigure
import bulkhead.lab.testkit.Scratch
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.{Files, Path}
import java.util.zip.GZIPOutputStream
import scala.util.Using

/** result.json of recorded real runs: read, written and read back unchanged; a stranger's JSON refused. */
class RecordJsonSpec extends AnyFlatSpec with Matchers:
  private def fixture(name: String) = Path.of(getClass.getResource(s"/fixtures/records/$name/result.json").toURI)

  "RecordJson" should "read a recorded run and write it back unchanged" in {
    val record = RecordJson.read(fixture("pool-4-queueing")).fold(e => fail(e), identity)
    record.info.name shouldBe "pool-4"
    record.samples should not be empty
    val dir = Scratch.dir("record")
    RecordJson.read(RecordJson.write(record, dir)).fold(e => fail(e), identity) shouldBe record
  }

  it should "read a run kept gzipped (result.json.gz) as the same record, alone or beside plain ones" in {
    val plain = fixture("pool-4-queueing")
    val dir = Scratch.dir("gzipped")
    val kept = Files.createDirectories(dir.resolve("pool-4")).resolve(RecordJson.GzipName)
    Using.resource(GZIPOutputStream(Files.newOutputStream(kept)))(_.write(Files.readAllBytes(plain)))
    RecordJson.in(kept.getParent) shouldBe Some(kept)
    RecordJson.read(kept) shouldBe RecordJson.read(plain)
    Files.copy(plain, Files.createDirectories(dir.resolve("plain")).resolve(RecordJson.FileName))
    RecordJson.readAll(dir).fold(e => fail(e), identity).map(_.info.name) shouldBe Seq("pool-4", "pool-4")
    RecordJson.in(Scratch.dir("empty")) shouldBe None
  }

  it should "read every result under a run's directory" in {
    val dir = fixture("pool-4-queueing").getParent.getParent
    RecordJson.readAll(dir).fold(e => fail(e), identity).map(_.info.name).toSet should contain("pool-4")
  }

  it should "read a seed by its id and the expected cap as its name, and write them back the same way" in {
    val recorded = Files.readString(fixture("default-dispatcher-parked"))
    def withSeed(seed: String) =
      val dir = Scratch.dir("seeded")
      Files.writeString(dir.resolve(RecordJson.FileName), recorded.replace("\"info\": {", s"\"info\": {\"seed\": $seed,"))
    val seeded = RecordJson.read(withSeed(
      """{"id": "001", "row": 1, "figure": "228.88 req/s", "requestsPerSecond": 228.88}"""))
      .fold(e => fail(e), identity)
    seeded.info.seed shouldBe Some(SeedFigure("001", 1, "228.88 req/s", Some(228.88)))
    seeded.info.expectedResource shouldBe Some(CapName(Resource.Pool, Some("default-dispatcher")))
    val written = RecordJson.write(seeded, Scratch.dir("rewritten"))
    Files.readString(written) should (include("\"id\": \"001\"") and
      include("\"expectedResource\": \"pool default-dispatcher\""))
    RecordJson.read(written).map(_.info.seed) shouldBe Right(seeded.info.seed)
    RecordJson.read(withSeed("""{"row": 1, "figure": "x"}""")).left.toOption.get should
      (include("missing required field") and include("id"))
  }

  it should "refuse a record whose expected cap is not one the lab names" in {
    val dir = Scratch.dir("unknown-cap")
    Files.writeString(dir.resolve(RecordJson.FileName), Files.readString(fixture("default-dispatcher-parked"))
      .replace("\"pool default-dispatcher\"", "\"disk\""))
    RecordJson.read(dir.resolve(RecordJson.FileName)).left.toOption.get should include("unknown resource 'disk'")
  }

  it should "refuse a file that is not a result, naming it" in {
    val file = Scratch.file("not-a-result", ".json")
    Files.writeString(file, """{"hello": 1}""")
    RecordJson.read(file).left.toOption.get should include(file.toString)
  }
