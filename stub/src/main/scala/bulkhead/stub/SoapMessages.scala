package bulkhead.stub

import java.io.ByteArrayInputStream
import java.nio.charset.StandardCharsets.UTF_8
import javax.xml.stream.{XMLInputFactory, XMLStreamConstants, XMLStreamException, XMLStreamReader}

/** The SOAP 1.1 messages of `GetCustomer`, as the third party reads and writes them. */
object SoapMessages:
  val EnvelopeNs = "http://schemas.xmlsoap.org/soap/envelope/"
  val CustomersNs = "urn:bulkhead:customers"
  val GetCustomerAction = "urn:bulkhead:customers/GetCustomer"
  /**
   * The header in which a caller may say until when its call is worth answering, in epoch milliseconds (the service
   * sends it): a call that arrives past it is stale, and the stub counts it.
   */
  val DeadlineHeader = "X-Request-Deadline"

  // optimization: a StAX pull read of the request, not a scala-xml tree: the id is the one value wanted, and the tree
  // (nodes, namespace bindings, a name split per element) was a third of the stub's allocation per call. One factory
  // per thread, set to reuse its reader: a fresh reader builds its scanner and entity manager again (14 KB a call
  // against 3.4 KB reused). A reader is not thread-safe; a thread's is used by that thread alone, closed after each
  // request. No DTD: a DOCTYPE is refused, so no entity is ever expanded.
  private val inputs = ThreadLocal.withInitial(() =>
    val f = XMLInputFactory.newDefaultFactory()
    f.setProperty(XMLInputFactory.SUPPORT_DTD, false)
    f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false)
    f.setProperty(XMLInputFactory.IS_NAMESPACE_AWARE, true)
    // The JDK's own reader (newDefaultFactory: no lookup of providers on the classpath inside a thread's first
    // answer) knows this property of its implementation.
    f.setProperty("reuse-instance", true)
    f)

  private val IdPath = Array("Body", "GetCustomer", "customerId")
  private val NotWellFormed = Left("request is not well-formed XML (or has a DOCTYPE)")

  /** The customerId of a GetCustomer request (Envelope / Body / GetCustomer / customerId), or why it is not one. */
  def readGetCustomer(body: Array[Byte]): Either[String, Long] =
    try
      val xml = inputs.get().createXMLStreamReader(ByteArrayInputStream(body))
      try readGetCustomer(xml) finally xml.close()
    catch case _: XMLStreamException => NotWellFormed

  private def readGetCustomer(xml: XMLStreamReader): Either[String, Long] =
    var depth = 0
    var envelope = false
    var path = 0 // how deep the path Body / GetCustomer / customerId has matched
    val id = StringBuilder()
    var malformed = false
    while xml.hasNext do
      xml.next() match
        case XMLStreamConstants.START_ELEMENT =>
          depth += 1
          if depth == 1 then envelope = xml.getLocalName == "Envelope" && xml.getNamespaceURI == EnvelopeNs
          else if path == depth - 2 && depth - 2 < IdPath.length && xml.getLocalName == IdPath(depth - 2) then
            path = depth - 1
        case XMLStreamConstants.END_ELEMENT =>
          if path == depth - 1 then path = depth - 2
          depth -= 1
        case XMLStreamConstants.CHARACTERS | XMLStreamConstants.CDATA if path == 3 && depth == 4 =>
          id.append(xml.getText)
        case XMLStreamConstants.DTD => malformed = true
        case _ =>
      if malformed then return NotWellFormed
    val text = id.toString.trim
    if !envelope then Left("not a SOAP 1.1 Envelope")
    else if text.isEmpty then Left("GetCustomer/customerId is missing")
    else text.toLongOption.toRight(s"customerId '$text' is not a number")

  private def envelope(body: String): String =
    s"""<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="$EnvelopeNs" xmlns:cus="$CustomersNs"><soapenv:Body>$body</soapenv:Body></soapenv:Envelope>"""

  private def escape(s: String): String =
    s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

  def customer(c: CustomerDirectory.Customer): Array[Byte] =
    envelope(s"<cus:GetCustomerResponse><cus:customer><cus:id>${c.id}</cus:id><cus:name>${escape(c.name)}</cus:name>" +
      s"<cus:segment>${c.segment}</cus:segment><cus:country>${c.country}</cus:country></cus:customer>" +
      "</cus:GetCustomerResponse>").getBytes(UTF_8)

  def fault(code: String, text: String, detail: String = ""): Array[Byte] =
    envelope(s"<soapenv:Fault><faultcode>soapenv:$code</faultcode><faultstring>${escape(text)}</faultstring>" +
      s"<detail>$detail</detail></soapenv:Fault>").getBytes(UTF_8)

  def unknownCustomer(id: Long): Array[Byte] =
    fault("Client", s"Unknown customer $id", "<cus:UnknownCustomer/>")

  val malformed: Array[Byte] =
    s"""<?xml version="1.0"?><soapenv:Envelope xmlns:soapenv="$EnvelopeNs"><soapenv:Body><cus:GetCustomerResponse>"""
      .getBytes(UTF_8)

  val xxe: Array[Byte] =
    ("""<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>""" +
      envelope("<cus:GetCustomerResponse><cus:customer><cus:id>&xxe;</cus:id></cus:customer></cus:GetCustomerResponse>")
        .stripPrefix("""<?xml version="1.0" encoding="UTF-8"?>""")).getBytes(UTF_8)

  val billionLaughs: Array[Byte] =
    val entities = (1 to 9).map(i => s"""<!ENTITY lol$i "${s"&lol${i - 1};" * 10}">""").mkString
    (s"""<?xml version="1.0"?><!DOCTYPE r [<!ENTITY lol0 "lol">$entities]>""" +
      envelope("<cus:GetCustomerResponse><cus:customer><cus:name>&lol9;</cus:name></cus:customer></cus:GetCustomerResponse>")
        .stripPrefix("""<?xml version="1.0" encoding="UTF-8"?>""")).getBytes(UTF_8)

  /** A valid answer padded with a comment to `bytes`. */
  def oversized(c: CustomerDirectory.Customer, bytes: Int): Array[Byte] =
    val (head, tail) = oversizedParts(c)
    head ++ padding(bytes) ++ tail

  /** The answer cut where the padding goes: the stub sends head, one shared padding, tail (no 4 MB built per call). */
  def oversizedParts(c: CustomerDirectory.Customer): (Array[Byte], Array[Byte]) =
    val base = String(customer(c), UTF_8)
    val at = base.indexOf("<soapenv:Body>")
    (base.take(at).getBytes(UTF_8), base.drop(at).getBytes(UTF_8))

  def padding(bytes: Int): Array[Byte] = ("<!--" + ("x" * bytes) + "-->").getBytes(UTF_8)
