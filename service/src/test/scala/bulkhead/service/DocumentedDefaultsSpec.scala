package bulkhead.service

import com.typesafe.config.{Config, ConfigFactory, ConfigValueType}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.file.{Files, Path}
import scala.jdk.CollectionConverters.*
import scala.util.Try

/**
 * The pages in docs/ and the README give the defaults the service and the stub ship: wherever a page names a key of
 * their reference.conf in backticks and gives it a value beside it (`key` (20), `key` is 3 s, `key`, 16, ...,
 * `key` off by default, `key=1` ... the default), the value is the one reference.conf declares. A key is named by its
 * whole path or by a tail of it that only one key has, bulkhead's own before Pekko's (`server.accept-batch`).
 */
class DocumentedDefaultsSpec extends AnyFlatSpec with Matchers:
  import DocumentedDefaultsSpec.*

  private val reference: Config = Seq("service", "stub")
    .map(m => ConfigFactory.parseFile(Path.of("..", m, "src/main/resources/reference.conf").toFile))
    .reduce(_.withFallback(_)).resolve()
  private val pages: Seq[Path] =
    Files.list(Path.of("../docs")).iterator().asScala.filter(_.toString.endsWith(".md"))
      .toSeq.sorted :+ Path.of("../README.md")

  "A default the docs give" should "be the one reference.conf declares" in {
    val wrong = for
      page <- pages
      stated <- statedValues(Files.readString(page), reference)
      if !agrees(reference, stated.key, stated.value)
    yield s"${page.getFileName}:${stated.line}: `${stated.key}` given as ${stated.value}, reference.conf has " +
      reference.getValue(stated.key).render()
    withClue(wrong.mkString("", "\n", "\n"))(wrong shouldBe Nil)
  }

  it should "be read from the docs: the settings the service page gives" in {
    val service = statedValues(Files.readString(Path.of("../docs/service.md")), reference).map(_.key).toSet
    service should contain allOf ("bulkhead.enrichment.routees", "bulkhead.service.server.max-connections",
      "bulkhead.service.server.max-head-bytes")
  }

  "The reading of a page" should "find each form a default is given in, and a wrong one" in {
    val text =
      """The router has `bulkhead.enrichment.routees` (20). Its sockets: `server.max-connections` is 16384,
        |the thread accepts (`server.accept-batch`, 16, at a time), `soap.admission.max-wait` (1 s) for a thread,
        |the fast path (`server.fast-path` off by default);
        |`--set bulkhead.service.server.accept-batch=1` (1 is the default).
        |A run with `bulkhead.enrichment.routees` (`--routees`), `transport` (whatever) or `accept-batch` (the stub's or
        |the service's: 64) says nothing.""".stripMargin
    statedValues(text, reference).map(s => s.key -> s.value) shouldBe Seq(
      "bulkhead.enrichment.routees" -> "20", "bulkhead.service.server.max-connections" -> "16384",
      "bulkhead.service.server.accept-batch" -> "16", "bulkhead.enrichment.soap.admission.max-wait" -> "1 s",
      "bulkhead.service.server.fast-path" -> "off", "bulkhead.service.server.accept-batch" -> "1")
    val wrong = statedValues(text, reference).filterNot(s => agrees(reference, s.key, s.value))
    wrong.map(_.value) shouldBe Seq("off", "1")
  }

object DocumentedDefaultsSpec:
  /** A value a page gives a key, at a line. */
  final case class Stated(key: String, value: String, line: Int)

  private val Value =
    """(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?:\s*(ms|s|min|h|B|KiB|MiB|GiB))?\b|on\b|off\b|true\b|false\b"""
  private val After = Seq(s"""^\\s*\\(\\s*($Value)\\s*[),;:]""", s"""^\\s+is\\s+($Value)""", s"""^,\\s*($Value),""",
    s"""^[,\\s(]*($Value)\\s+by default""").map(_.r)
  private val Assignment = """([\w.-]+)\s*=\s*(\S+)$""".r.unanchored

  /** Each value the text gives a key of `reference` in one of the forms above, in the order they come. */
  def statedValues(text: String, reference: Config): Seq[Stated] =
    val keys = reference.entrySet().asScala.map(_.getKey).toSeq
    def resolve(name: String): Option[String] =
      val named = keys.filter(k => k == name || k.endsWith("." + name))
      // bulkhead's own key before a Pekko key it also sets (`server.max-connections`)
      Seq(named, named.filter(_.startsWith("bulkhead."))).collectFirst { case Seq(one) => one }
    // A name in backticks may run on to the next line, never past a paragraph.
    """`([^`]+?)`""".r.findAllMatchIn(text).filterNot(_.group(1).contains("\n\n")).flatMap { m =>
      val after = text.substring(m.end, (m.end + 80).min(text.length)).replace('\n', ' ')
      val line = text.substring(0, m.start).count(_ == '\n') + 1
      m.group(1).replace('\n', ' ') match
        case Assignment(name, value) if after.take(40).contains("the default") =>
          resolve(name).map(Stated(_, value, line))
        case name => resolve(name.trim).flatMap(k => After.view.flatMap(_.findFirstMatchIn(after)).headOption
          .map(v => Stated(k, v.group(1).trim, line)))
    }.toSeq

  /** Whether `value`, as a page writes it (4,000; 1 s; 64 KiB; off), is what `reference` has at `key`. */
  def agrees(reference: Config, key: String, value: String): Boolean =
    val plain = value.replace(",", "")
    reference.getValue(key).valueType match
      case ConfigValueType.BOOLEAN => Try(ConfigFactory.parseString(s"v = $plain").getBoolean("v"))
        .toOption.contains(reference.getBoolean(key))
      case ConfigValueType.NUMBER => plain.toDoubleOption.contains(reference.getDouble(key))
      case ConfigValueType.STRING =>
        val asDuration = Try(ConfigFactory.parseString(s"v = $plain").getDuration("v")).toOption
        val asBytes = Try(ConfigFactory.parseString(s"v = $plain").getBytes("v").longValue).toOption
        reference.getString(key) == plain.stripPrefix("\"").stripSuffix("\"") ||
          asDuration.exists(d => Try(reference.getDuration(key)).toOption.contains(d)) ||
          asBytes.exists(b => Try(reference.getBytes(key).longValue).toOption.contains(b))
      case _ => false
