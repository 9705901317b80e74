package bulkhead.service.soap

import bulkhead.stub.{CustomerDirectory, SoapMessages}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/** The payloads are the stub's own hostile answers, the ones the service meets in the fault tests. */
class SafeXmlSpec extends AnyFlatSpec with Matchers:
  private val xml = SafeXml(65536)

  "SafeXml" should "read the third party's answer" in {
    val c = CustomerDirectory(10).find(3).get
    val read = xml.parse(SoapMessages.customer(c)).toOption.get
    read.label shouldBe "Envelope"
    (read \\ "name").text shouldBe c.name
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

  it should "read an answer after refusing hostile ones on the same thread (its parser is reused)" in {
    val c = CustomerDirectory(10).find(4).get
    xml.parse(SoapMessages.xxe).isLeft shouldBe true
    xml.parse(SoapMessages.malformed).isLeft shouldBe true
    (xml.parse(SoapMessages.customer(c)).toOption.get \\ "name").text shouldBe c.name
    xml.parse(SoapMessages.billionLaughs) shouldBe Left("DOCTYPE is not allowed")
  }
