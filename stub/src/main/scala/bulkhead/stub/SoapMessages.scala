package bulkhead.stub

import java.io.ByteArrayInputStream
import java.nio.charset.StandardCharsets.UTF_8
import javax.xml.parsers.SAXParserFactory
import scala.util.Try
import scala.xml.XML

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

  private val parsers =
    val f = SAXParserFactory.newInstance()
    f.setNamespaceAware(true)
    f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true)
    f

  // One parser per thread, reset after each request, not one per request: a new parser builds its whole
  // configuration (symbol table, scanners, features) again, and the stub must stay cheap beside the service it serves
  // on the same cores. A parser is not thread-safe; a thread's is used by that thread alone.
  private val parser = ThreadLocal.withInitial(() => parsers.newSAXParser())

  /** The customerId of a GetCustomer request, or why the request is not one. */
  def readGetCustomer(body: Array[Byte]): Either[String, Long] =
    val p = parser.get()
    val read = try Try(XML.withSAXParser(p).load(ByteArrayInputStream(body))) finally p.reset()
    read.toEither.left
      .map(_ => "request is not well-formed XML (or has a DOCTYPE)")
      .flatMap { xml =>
        val id = (xml \ "Body" \ "GetCustomer" \ "customerId").text.trim
        if xml.label != "Envelope" || xml.namespace != EnvelopeNs then Left("not a SOAP 1.1 Envelope")
        else if id.isEmpty then Left("GetCustomer/customerId is missing")
        else id.toLongOption.toRight(s"customerId '$id' is not a number")
      }

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
