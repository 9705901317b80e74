package bulkhead.service.soap

import bulkhead.service.enrichment.{ThirdPartyCustomer, ThirdPartyFailure}
import bulkhead.stub.{CustomerDirectory, SoapMessages}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.nio.charset.StandardCharsets.UTF_8

/** The service's side of `GetCustomer`, checked against the stub's own reading and writing of the messages. */
class SoapProtocolSpec extends AnyFlatSpec with Matchers:
  private val xml = SafeXml(65536)
  private val directory = CustomerDirectory(100)

  private def read(id: Int, status: Int, body: Array[Byte]) = SoapProtocol.readHttpAnswer(id, status, body, xml)

  /** The detail of a `Malformed` reading; anything else fails the test. */
  private def malformed(answer: Either[ThirdPartyFailure, ThirdPartyCustomer]): String = answer match
    case Left(ThirdPartyFailure.Malformed(detail)) => detail
    case other => fail(s"expected Malformed, got $other")

  "SoapProtocol" should "write a GetCustomer request that the third party reads as that id" in {
    for id <- Seq(1, 42, 999_999_999) do
      SoapMessages.readGetCustomer(SoapProtocol.getCustomerRequest(id)) shouldBe Right(id.toLong)
  }

  it should "read the third party's answer into a customer, field by field" in {
    val c = directory.find(17).get
    read(17, 200, SoapMessages.customer(c)) shouldBe Right(ThirdPartyCustomer(17, c.name, c.segment, c.country))
  }

  it should "refuse an answer about another customer than the one asked for" in {
    val other = directory.find(18).get
    malformed(read(17, 200, SoapMessages.customer(other))) should (include("18") and include("17"))
  }

  it should "tell an unknown customer (an answer) from any other SOAP Fault (a failure)" in {
    read(42, 500, SoapMessages.unknownCustomer(42)) shouldBe Left(ThirdPartyFailure.UnknownCustomer(42))
    read(1, 500, SoapMessages.fault("Server", "boom")) match
      case Left(ThirdPartyFailure.Fault(detail)) => detail should (include("Server") and include("boom"))
      case other => fail(s"expected a Fault, got $other")
  }

  it should "call an HTTP status other than SOAP's 200 and 500 a fault without reading the body" in {
    read(1, 404, "not XML at all".getBytes(UTF_8)) match
      case Left(ThirdPartyFailure.Fault(detail)) => detail should include("404")
      case other => fail(s"expected a Fault, got $other")
  }

  it should "call malformed XML, a non-SOAP document and an incomplete customer malformed" in {
    malformed(read(1, 200, SoapMessages.malformed)) should include("unreadable XML")
    malformed(read(1, 200, "<customer><id>1</id></customer>".getBytes(UTF_8))) should include("envelope")
    val full = String(SoapMessages.customer(directory.find(1).get), UTF_8)
    val incomplete = full.replaceAll("<cus:segment>[^<]*</cus:segment>", "")
    incomplete should not be full
    malformed(read(1, 200, incomplete.getBytes(UTF_8))) should include("segment")
  }

  it should "read the fields in any order, among elements it does not know, and only in SOAP's own Body" in {
    val env = s"""<e:Envelope xmlns:e="${SoapProtocol.EnvelopeNs}" xmlns:c="${SoapProtocol.CustomersNs}">"""
    val customer = "<c:GetCustomerResponse><c:customer><c:extra><c:id>99</c:id></c:extra><c:country>JP</c:country>" +
      "<c:name>Ada <b>L</b></c:name><c:id>5</c:id><c:segment>smb</c:segment></c:customer></c:GetCustomerResponse>"
    read(5, 200, s"$env<e:Body>$customer</e:Body></e:Envelope>".getBytes(UTF_8)) shouldBe
      Right(ThirdPartyCustomer(5, "Ada L", "smb", "JP"))
    val foreignBody = s"""$env<x:Body xmlns:x="urn:other">$customer</x:Body></e:Envelope>"""
    malformed(read(5, 200, foreignBody.getBytes(UTF_8))) should include("envelope")
  }

  it should "refuse a hostile answer (DOCTYPE) as malformed, never expanding it" in {
    malformed(read(1, 200, SoapMessages.xxe)) should include("DOCTYPE")
    malformed(read(1, 200, SoapMessages.billionLaughs)) should include("DOCTYPE")
  }
