package bulkhead.service.soap

import bulkhead.stub.{CustomerDirectory, SoapMessages}
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/** The payloads are the stub's own hostile answers, the ones the service meets in the fault tests. */
class SafeXmlSpec extends AnyFlatSpec with Matchers:
  private val xml = SafeXml(65536)

  /** The root's name and the text of the first element named `name`, read as they stream. */
  private def rootAnd(name: String)(events: SafeXml.Events): (String, String) =
    var root, found = ""
    while events.nextElement() do
      if events.level == 1 then root = events.name
      else if events.name == name && found.isEmpty then found = events.text()
    (root, found)

  private def parse(bytes: Array[Byte]) = xml.read(bytes)(rootAnd("name"))

  "SafeXml" should "read the third party's answer" in {
    val c = CustomerDirectory(10).find(3).get
    parse(SoapMessages.customer(c)) shouldBe Right(("Envelope", c.name))
  }

  it should "reject a DOCTYPE with an external entity (XXE)" in {
    parse(SoapMessages.xxe) shouldBe Left("DOCTYPE is not allowed")
  }

  it should "reject a billion-laughs entity expansion" in {
    parse(SoapMessages.billionLaughs) shouldBe Left("DOCTYPE is not allowed")
  }

  it should "reject a body above its size limit before parsing it" in {
    val big = SoapMessages.oversized(CustomerDirectory(10).find(1).get, 70000)
    parse(big).left.toOption.get should include("above the limit of 65536")
  }

  it should "report malformed XML without a stack trace, also past what the reader wanted" in {
    parse(SoapMessages.malformed).left.toOption.get should startWith("unreadable XML")
    xml.read(SoapMessages.malformed)(_.nextElement()).left.toOption.get should startWith("unreadable XML")
  }

  it should "read an answer after refusing hostile ones on the same thread (its parser is reused)" in {
    val c = CustomerDirectory(10).find(4).get
    parse(SoapMessages.xxe).isLeft shouldBe true
    parse(SoapMessages.malformed).isLeft shouldBe true
    parse(SoapMessages.customer(c)).map(_._2) shouldBe Right(c.name)
    parse(SoapMessages.billionLaughs) shouldBe Left("DOCTYPE is not allowed")
  }
