package bulkhead.service.soap

import java.io.ByteArrayInputStream
import javax.xml.XMLConstants
import javax.xml.parsers.SAXParserFactory
import scala.util.Try
import scala.xml.{Elem, XML}

/**
 * An XML reader that refuses what a hostile third party could send: any DOCTYPE (so no external entities, no entity
 * expansion such as billion laughs) and bodies above a size limit, checked before parsing.
 */
final class SafeXml(maxBytes: Int):
  private val factory =
    val f = SAXParserFactory.newInstance()
    f.setNamespaceAware(true)
    f.setXIncludeAware(false)
    f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true)
    f.setFeature("http://xml.org/sax/features/external-general-entities", false)
    f.setFeature("http://xml.org/sax/features/external-parameter-entities", false)
    f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false)
    f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true)
    f
  // optimization: one parser per thread, reset after each answer, not one per answer: a new parser builds its whole
  // configuration (symbol table, scanners, the features above) again. A parser is not thread-safe; a thread's is
  // used by that thread alone. Virtual threads live for one call, so each still builds one.
  private val parsers = ThreadLocal.withInitial(() => factory.newSAXParser())

  def parse(bytes: Array[Byte]): Either[String, Elem] =
    if bytes.length > maxBytes then Left(s"body of ${bytes.length} bytes is above the limit of $maxBytes")
    else
      val parser = parsers.get()
      val read = try Try(XML.withSAXParser(parser).load(ByteArrayInputStream(bytes))) finally parser.reset()
      read.toEither.left.map { e =>
        val msg = Option(e.getMessage).getOrElse(e.getClass.getSimpleName)
        if msg.contains("DOCTYPE") then "DOCTYPE is not allowed" else s"unreadable XML: ${msg.take(200)}"
      }
