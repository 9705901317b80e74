package bulkhead.service.soap

import bulkhead.service.enrichment.{ThirdPartyCustomer, ThirdPartyFailure}

import java.nio.charset.StandardCharsets
import scala.xml.{Elem, Node}

/** SOAP 1.1 `GetCustomer`: the request the service sends and the reading of the answer. */
object SoapProtocol:
  val EnvelopeNs = "http://schemas.xmlsoap.org/soap/envelope/"
  val CustomersNs = "urn:bulkhead:customers"
  val SoapAction = "\"urn:bulkhead:customers/GetCustomer\""
  val ContentType = "text/xml; charset=utf-8"
  /**
   * Sent with every call: until when (epoch milliseconds) the call is worth answering, the end of its request-timeout.
   * A third party, or a proxy in front of it, can drop a call that arrives past it, whose caller has already been
   * answered 504; the lab's stub counts such stale calls.
   */
  val DeadlineHeader = "X-Request-Deadline"

  def getCustomerRequest(id: Int): Array[Byte] =
    s"""<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="$EnvelopeNs" xmlns:cus="$CustomersNs"><soapenv:Body><cus:GetCustomer><cus:customerId>$id</cus:customerId></cus:GetCustomer></soapenv:Body></soapenv:Envelope>"""
      .getBytes(StandardCharsets.UTF_8)

  /** Reads a `GetCustomerResponse` or a SOAP Fault; anything else is `Malformed`. */
  def readAnswer(id: Int, xml: Elem): Either[ThirdPartyFailure, ThirdPartyCustomer] =
    val body = (xml \ "Body").filter(_.namespace == EnvelopeNs)
    if xml.label != "Envelope" || xml.namespace != EnvelopeNs || body.isEmpty then
      Left(ThirdPartyFailure.Malformed("not a SOAP 1.1 envelope"))
    else
      val fault = body \ "Fault"
      if fault.nonEmpty then Left(readFault(id, fault.head))
      else
        val customer = body \ "GetCustomerResponse" \ "customer"
        def field(name: String): Option[String] = (customer \ name).headOption.map(_.text.trim).filter(_.nonEmpty)
        val read = for
          cid <- field("id").flatMap(_.toIntOption)
          name <- field("name")
          segment <- field("segment")
          country <- field("country")
        yield ThirdPartyCustomer(cid, name, segment, country)
        read match
          case Some(c) if c.id == id => Right(c)
          case Some(c) => Left(ThirdPartyFailure.Malformed(s"answer is for customer ${c.id}, not $id"))
          case None => Left(ThirdPartyFailure.Malformed("GetCustomerResponse lacks id, name, segment or country"))

  private def readFault(id: Int, fault: Node): ThirdPartyFailure =
    val code = (fault \ "faultcode").text.trim
    val text = (fault \ "faultstring").text.trim
    if (fault \ "detail" \ "UnknownCustomer").nonEmpty then ThirdPartyFailure.UnknownCustomer(id)
    else ThirdPartyFailure.Fault(s"SOAP Fault $code: ${text.take(200)}")

  /** Reads an HTTP answer of the third party: SOAP 1.1 sends results with 200 and faults with 500. */
  def readHttpAnswer(id: Int, status: Int, body: Array[Byte], xml: SafeXml)
      : Either[ThirdPartyFailure, ThirdPartyCustomer] =
    if status != 200 && status != 500 then Left(ThirdPartyFailure.Fault(s"HTTP $status from the third party"))
    else xml.parse(body).left.map(ThirdPartyFailure.Malformed(_)).flatMap(readAnswer(id, _))
