package bulkhead.service.soap

import java.io.ByteArrayInputStream
import javax.xml.stream.{XMLInputFactory, XMLStreamConstants, XMLStreamException, XMLStreamReader}

/**
 * A streaming (StAX) XML reader that refuses what a hostile third party could send: any DOCTYPE (so no external
 * entities, no entity expansion such as billion laughs) and bodies above a size limit, checked before reading.
 */
final class SafeXml(maxBytes: Int):
  // optimization: one factory per thread, set to reuse its reader: a fresh reader builds its scanner and entity
  // manager again (14 KB a call against 3.4 KB reused), and a pull read keeps only the values asked for, where a
  // scala-xml tree built every node. A reader is not thread-safe; a thread's is used by that thread alone, closed
  // after each answer. Virtual threads live for one call, so each still builds one.
  private val factories = ThreadLocal.withInitial(() =>
    val f = XMLInputFactory.newDefaultFactory()
    f.setProperty(XMLInputFactory.SUPPORT_DTD, false)
    f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false)
    f.setProperty(XMLInputFactory.IS_NAMESPACE_AWARE, true)
    // The JDK's own reader (newDefaultFactory: no lookup of providers on the classpath inside a thread's first
    // answer) knows this property of its implementation.
    f.setProperty("reuse-instance", true)
    f)

  /**
   * `read` over the document's events, from before its root element; a DOCTYPE, a body above the limit and XML that
   * does not parse (up to its end, whatever `read` stopped at) are refused with a sentence.
   */
  def read[A](bytes: Array[Byte])(read: SafeXml.Events => A): Either[String, A] =
    if bytes.length > maxBytes then Left(s"body of ${bytes.length} bytes is above the limit of $maxBytes")
    else
      try
        val xml = factories.get().createXMLStreamReader(ByteArrayInputStream(bytes))
        try
          val events = SafeXml.Events(xml)
          val result = read(events)
          events.drain()
          Right(result)
        finally xml.close()
      catch
        case SafeXml.DoctypeRefused => Left("DOCTYPE is not allowed")
        case e: XMLStreamException =>
          val msg = Option(e.getMessage).getOrElse(e.getClass.getSimpleName)
          if msg.contains("DOCTYPE") then Left("DOCTYPE is not allowed") else Left(s"unreadable XML: ${msg.take(200)}")

object SafeXml:
  private object DoctypeRefused extends RuntimeException("DOCTYPE", null, false, false)

  /** The elements of a document as they stream, with their depth (the root is 1); a DOCTYPE stops the read. */
  final class Events(xml: XMLStreamReader):
    private var depth = 0

    /** Advances to the next element start, skipping ends and text, until none is left. */
    def nextElement(): Boolean =
      var found = false
      while !found && xml.hasNext do
        xml.next() match
          case XMLStreamConstants.START_ELEMENT =>
            depth += 1
            found = true
          case XMLStreamConstants.END_ELEMENT => depth -= 1
          case XMLStreamConstants.DTD => throw DoctypeRefused
          case _ =>
      found

    /** The depth of the element at hand: 1 for the root. */
    def level: Int = depth
    def name: String = xml.getLocalName
    def namespace: String = Option(xml.getNamespaceURI).getOrElse("")

    /** The text of the element at hand and of every element inside it, leaving the read after its end. */
    def text(): String =
      val text = StringBuilder()
      val at = depth
      while depth >= at && xml.hasNext do
        xml.next() match
          case XMLStreamConstants.START_ELEMENT => depth += 1
          case XMLStreamConstants.END_ELEMENT => depth -= 1
          case XMLStreamConstants.CHARACTERS | XMLStreamConstants.CDATA | XMLStreamConstants.SPACE =>
            text.append(xml.getText)
          case XMLStreamConstants.DTD => throw DoctypeRefused
          case _ =>
      text.toString

    /** Reads to the end, so that XML malformed after what was wanted is refused as well. */
    private[SafeXml] def drain(): Unit = while xml.hasNext do
      if xml.next() == XMLStreamConstants.DTD then throw DoctypeRefused
