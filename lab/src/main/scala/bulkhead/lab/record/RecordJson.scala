package bulkhead.lab.record

import bulkhead.lab.model.CapName
import com.github.plokhotnyuk.jsoniter_scala.core.*
import com.github.plokhotnyuk.jsoniter_scala.macros.{CodecMakerConfig, JsonCodecMaker}

import java.io.ByteArrayInputStream
import java.nio.file.{Files, Path}
import java.util.zip.GZIPInputStream
import scala.jdk.CollectionConverters.*

/**
 * `result.json`: a [[RunRecord]] written and read back (jsoniter-scala). The lab writes it plain; a run kept in the
 * repository (docs/results) may be gzipped as `result.json.gz` (a record's samples compress ~9x), and reads the same.
 */
object RecordJson:
  val FileName = "result.json"
  val GzipName = s"$FileName.gz"

  /** A diagnosis case's expected cap, written as the lab names it (`pool blocking-pool`) and read back by its parser. */
  private given JsonValueCodec[CapName] = new JsonValueCodec[CapName]:
    def decodeValue(in: JsonReader, default: CapName): CapName =
      val text = in.readString(null)
      CapName.parse(text).fold(e => in.decodeError(s"expectedResource: $e"), identity)
    def encodeValue(x: CapName, out: JsonWriter): Unit = out.writeVal(x.text)
    def nullValue: CapName = null

  /** A request's outcome as its label (`200`, `error:timeout`), as a value and as a key of a count by outcome. */
  private given JsonValueCodec[RequestOutcome] = new JsonValueCodec[RequestOutcome]:
    def decodeValue(in: JsonReader, default: RequestOutcome): RequestOutcome =
      RequestOutcome.parse(in.readString(null)).fold(e => in.decodeError(e), identity)
    def encodeValue(x: RequestOutcome, out: JsonWriter): Unit = out.writeVal(x.label)
    def nullValue: RequestOutcome = null

  private given JsonKeyCodec[RequestOutcome] = new JsonKeyCodec[RequestOutcome]:
    def decodeKey(in: JsonReader): RequestOutcome =
      RequestOutcome.parse(in.readKeyAsString()).fold(e => in.decodeError(e), identity)
    def encodeKey(x: RequestOutcome, out: JsonWriter): Unit = out.writeKey(x.label)

  /** What a fault's breaker must do, by its name (`Opens`). */
  private given JsonValueCodec[BreakerExpectation] = new JsonValueCodec[BreakerExpectation]:
    def decodeValue(in: JsonReader, default: BreakerExpectation): BreakerExpectation =
      val name = in.readString(null)
      BreakerExpectation.values.find(_.toString == name).getOrElse(in.decodeError(s"not a breaker expectation: $name"))
    def encodeValue(x: BreakerExpectation, out: JsonWriter): Unit = out.writeVal(x.toString)
    def nullValue: BreakerExpectation = null

  given JsonValueCodec[RunRecord] = JsonCodecMaker.make(CodecMakerConfig.withAllowRecursiveTypes(false))

  def write(record: RunRecord, dir: Path): Path =
    Files.createDirectories(dir)
    val file = dir.resolve(FileName)
    Files.write(file, writeToArray(record, WriterConfig.withIndentionStep(1)))
    file

  /** The record of a run's directory: `result.json`, else `result.json.gz`. */
  def in(dir: Path): Option[Path] =
    Seq(FileName, GzipName).map(dir.resolve).find(Files.isRegularFile(_))

  def read(file: Path): Either[String, RunRecord] =
    try
      val bytes = Files.readAllBytes(file)
      Right(readFromArray[RunRecord](if isGzip(file) then GZIPInputStream(ByteArrayInputStream(bytes)).readAllBytes()
        else bytes))
    catch
      case e: JsonReaderException => Left(s"$file: not a bulkhead result: ${e.getMessage.linesIterator.next()}")
      case e: java.io.IOException => Left(s"$file: ${e.getMessage}")

  /** Every result under `dir` (a run's directory, one subdirectory per scenario), sorted by path. */
  def readAll(dir: Path): Either[String, Seq[RunRecord]] =
    if !Files.isDirectory(dir) then Left(s"no such directory: $dir")
    else
      val files = Files.walk(dir).iterator().asScala.filter(f => isRecord(f.getFileName.toString)).toSeq
        .sortBy(_.toString)
      if files.isEmpty then Left(s"$dir holds no $FileName (written by ./bulkhead lab run)")
      else
        val read = files.map(this.read)
        read.collectFirst { case Left(e) => e }.toLeft(read.collect { case Right(r) => r })

  /** A file name the lab reads as a record: `result.json` or `result.json.gz`. */
  def isRecord(name: String): Boolean = name == FileName || name == GzipName

  private def isGzip(file: Path) = file.getFileName.toString.endsWith(".gz")
