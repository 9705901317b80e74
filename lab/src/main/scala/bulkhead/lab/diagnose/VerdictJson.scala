package bulkhead.lab.diagnose

import bulkhead.lab.model.{FixKind, Resource}
import bulkhead.lab.record.RunRecord
import com.github.plokhotnyuk.jsoniter_scala.core.*
import com.github.plokhotnyuk.jsoniter_scala.macros.{CodecMakerConfig, JsonCodecMaker}

import java.nio.file.{Files, Path}
import scala.jdk.CollectionConverters.*

/**
 * `verdict.json`: a run's verdict as data, beside its `result.json` (docs/verdict.md). The [[Verdict]] is written
 * field by field as its type declares them (a field added to it, its [[Cap]]s or its [[Fix]] is in the file with no
 * change here); the run it judges is named, and with `--expect` the earlier prediction sits beside the measurement.
 */
object VerdictJson:
  val FileName = "verdict.json"
  /** What a reader checks before it reads the rest; raised when a field changes meaning or goes. */
  val Schema = "bulkhead-verdict/1"

  /**
   * The file: `name` is what caps as the lab names it (`semaphore`, `pool qtp`, `errors`), `line` the verdict line
   * the terminal shows.
   */
  final case class VerdictFile(schema: String, run: String, target: String, url: String, jdk: String, cores: Int,
      name: String, line: String, verdict: Verdict, expectation: Option[Expectation] = None)

  private given JsonValueCodec[Resource] = new JsonValueCodec[Resource]:
    def decodeValue(in: JsonReader, default: Resource): Resource =
      val key = in.readString(null)
      Resource.values.find(_.key == key).getOrElse(in.decodeError(s"not a resource: $key"))
    def encodeValue(x: Resource, out: JsonWriter): Unit = out.writeVal(x.key)
    def nullValue: Resource = null

  private given JsonValueCodec[FixKind] = new JsonValueCodec[FixKind]:
    def decodeValue(in: JsonReader, default: FixKind): FixKind =
      FixKind.parse(in.readString(null)).fold(in.decodeError, identity)
    def encodeValue(x: FixKind, out: JsonWriter): Unit = out.writeVal(x.key)
    def nullValue: FixKind = null

  /** A figure the run could not measure (no answer at all: a rate of 0 / 0) is `null`, which JSON can hold. */
  private given JsonValueCodec[Double] = new JsonValueCodec[Double]:
    def decodeValue(in: JsonReader, default: Double): Double =
      if in.isNextToken('n') then
        in.readNullOrError(default, "expected a number or null")
        Double.NaN
      else
        in.rollbackToken()
        in.readDouble()
    def encodeValue(x: Double, out: JsonWriter): Unit = if x.isNaN || x.isInfinite then out.writeNull() else out.writeVal(x)
    def nullValue: Double = Double.NaN

  // Every field is written, defaults, empty lists and absent values (null) too: a reader finds each key in every file.
  given JsonValueCodec[VerdictFile] = JsonCodecMaker.make(CodecMakerConfig.withAllowRecursiveTypes(false)
    .withTransientDefault(false).withTransientEmpty(false).withTransientNone(false))

  /** The verdict of `record`, beside what an earlier verdict predicted for it, as the file holds it. */
  def of(record: RunRecord, prediction: Option[Prediction] = None): VerdictFile =
    val verdict = Diagnosis(record)
    VerdictFile(Schema, record.info.name, record.info.target, record.info.url, record.info.jdk, record.info.cores,
      verdict.name, verdict.line(record.info.name), verdict, prediction.map(Expectation.of(_, verdict)))

  def write(file: VerdictFile, dir: Path): Path =
    Files.createDirectories(dir)
    Files.write(dir.resolve(FileName), writeToArray(file, WriterConfig.withIndentionStep(1)))

  /** The verdict of a run's directory. */
  def read(dir: Path): Either[String, VerdictFile] =
    val file = dir.resolve(FileName)
    if !Files.isRegularFile(file) then Left(s"no $FileName in $dir")
    else
      try
        val read = readFromArray[VerdictFile](Files.readAllBytes(file))
        Either.cond(read.schema == Schema, read, s"$file: schema ${read.schema}, this lab reads $Schema")
      catch
        case e: JsonReaderException => Left(s"$file: not a bulkhead verdict: ${e.getMessage.linesIterator.next()}")
        case e: java.io.IOException => Left(s"$file: ${e.getMessage}")

  /** Every verdict under `dir` (a run's directory and its subdirectories), by path; unreadable ones as errors. */
  def readAll(dir: Path): Seq[(Path, Either[String, VerdictFile])] =
    if !Files.isDirectory(dir) then Nil
    else
      scala.util.Using.resource(Files.walk(dir))(_.iterator.asScala
        .filter(f => f.getFileName.toString == FileName).toVector.sortBy(_.toString))
        .map(f => f.getParent -> read(f.getParent))
