package bulkhead.service.soap

import bulkhead.service.enrichment.{ThirdPartyCustomer, ThirdPartyFailure}

import java.nio.charset.StandardCharsets

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

  /**
   * Reads a `GetCustomerResponse` or a SOAP Fault as it streams (Envelope / Body / GetCustomerResponse / customer /
   * {id, name, segment, country}, or Envelope / Body / Fault); anything else is `Malformed`.
   */
  def readAnswer(id: Int, xml: SafeXml.Events): Either[ThirdPartyFailure, ThirdPartyCustomer] =
    var envelope = false
    var body = false
    var inBody = false
    var fault = false
    var unknownCustomer = false
    var code, text = ""
    var section, part = "" // the element at hand at levels 3 and 4, under Body
    val fields = new Array[String](4)
    while xml.nextElement() do
      xml.level match
        case 1 => envelope = xml.name == "Envelope" && xml.namespace == EnvelopeNs
        case 2 =>
          inBody = xml.name == "Body" && xml.namespace == EnvelopeNs
          if inBody then body = true
        case 3 =>
          section = if inBody then xml.name else ""
          if section == "Fault" then fault = true
        case 4 =>
          part = xml.name
          if section == "Fault" && part == "faultcode" then code = xml.text().trim
          else if section == "Fault" && part == "faultstring" then text = xml.text().trim
        case 5 =>
          if section == "Fault" && part == "detail" && xml.name == "UnknownCustomer" then unknownCustomer = true
          else if section == "GetCustomerResponse" && part == "customer" then
            val i = CustomerFields.indexOf(xml.name)
            if i >= 0 && fields(i) == null then fields(i) = xml.text().trim
        case _ =>
      if !envelope then return Left(ThirdPartyFailure.Malformed("not a SOAP 1.1 envelope"))
    if !body then Left(ThirdPartyFailure.Malformed("not a SOAP 1.1 envelope"))
    else if fault then
      Left(if unknownCustomer then ThirdPartyFailure.UnknownCustomer(id)
        else ThirdPartyFailure.Fault(s"SOAP Fault $code: ${text.take(200)}"))
    else
      fields.map(Option(_).filter(_.nonEmpty)) match
        case Array(Some(cid), Some(name), Some(segment), Some(country)) if cid.toIntOption.isDefined =>
          val c = ThirdPartyCustomer(cid.toInt, name, segment, country)
          if c.id == id then Right(c) else Left(ThirdPartyFailure.Malformed(s"answer is for customer ${c.id}, not $id"))
        case _ => Left(ThirdPartyFailure.Malformed("GetCustomerResponse lacks id, name, segment or country"))

  private val CustomerFields = IndexedSeq("id", "name", "segment", "country")

  /** Reads an HTTP answer of the third party: SOAP 1.1 sends results with 200 and faults with 500. */
  def readHttpAnswer(id: Int, status: Int, body: Array[Byte], xml: SafeXml)
      : Either[ThirdPartyFailure, ThirdPartyCustomer] =
    if status != 200 && status != 500 then Left(ThirdPartyFailure.Fault(s"HTTP $status from the third party"))
    else xml.read(body)(readAnswer(id, _)).left.map(ThirdPartyFailure.Malformed(_)).flatten
