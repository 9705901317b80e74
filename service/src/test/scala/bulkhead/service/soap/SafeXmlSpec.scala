package bulkhead.service.soap

import bulkhead.service.enrichment.ThirdPartyFailure
import bulkhead.stub.{CustomerDirectory, SoapMessages}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/** The payloads are the stub's own hostile answers, the ones the service meets in the fault tests. */
class SafeXmlSpec extends AnyFlatSpec with Matchers:
  private val xml = SafeXml(65536)

  "SafeXml" should "read a SOAP answer into a customer" in {
    val c = CustomerDirectory(10).find(3).get
    xml.parse(SoapMessages.customer(c)).flatMap(SoapProtocol.readAnswer(3, _).left.map(_.toString)) shouldBe
      Right(bulkhead.service.enrichment.ThirdPartyCustomer(3, c.name, c.segment, c.country))
  }

  it should "reject a DOCTYPE with an external entity (XXE)" in {
    xml.parse(SoapMessages.xxe) shouldBe Left("DOCTYPE is not allowed")
  }

  it should "reject a billion-laughs entity expansion" in {
    xml.parse(SoapMessages.billionLaughs) shouldBe Left("DOCTYPE is not allowed")
  }

  it should "reject a body above its size limit before parsing it" in {
    val big = SoapMessages.oversized(CustomerDirectory(10).find(1).get, 70000)
    xml.parse(big).left.toOption.get should include("above the limit of 65536")
  }

  it should "report malformed XML without a stack trace" in {
    xml.parse(SoapMessages.malformed).left.toOption.get should startWith("unreadable XML")
  }

  "SoapProtocol" should "tell an unknown customer from another SOAP Fault" in {
    xml.parse(SoapMessages.unknownCustomer(42)).map(SoapProtocol.readAnswer(42, _)) shouldBe
      Right(Left(ThirdPartyFailure.UnknownCustomer(42)))
    xml.parse(SoapMessages.fault("Server", "boom")).map(SoapProtocol.readAnswer(1, _)).toOption.get.left.toOption.get
      .shouldBe(a[ThirdPartyFailure.Fault])
  }
