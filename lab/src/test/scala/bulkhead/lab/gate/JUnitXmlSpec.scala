package bulkhead.lab.gate

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.w3c.dom.Element

import java.io.ByteArrayInputStream
import java.nio.charset.StandardCharsets.UTF_8
import javax.xml.parsers.DocumentBuilderFactory

/** The gate's JUnit XML report, read back with the JDK's XML parser as a CI server reads it. */
class JUnitXmlSpec extends AnyFlatSpec with Matchers:
  private val result = GateResult(Seq(
    CheckResult("pool-4", GateCheck.Resource, Outcome.Pass, "pool blocking-pool, as the baseline"),
    CheckResult("pool-4", GateCheck.Cap, Outcome.Fail, "fell: 38.2 req/s < 146.5 & \"more\" <here>"),
    CheckResult("pool-4", GateCheck.Cpu, Outcome.Skipped, "not compared")), Seq("gone"), Nil, 0.05)

  private def parse(xml: String) =
    val factory = DocumentBuilderFactory.newInstance()
    factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true)
    factory.newDocumentBuilder().parse(ByteArrayInputStream(xml.getBytes(UTF_8))).getDocumentElement

  private def children(e: Element, tag: String): Seq[Element] =
    val nodes = e.getElementsByTagName(tag)
    (0 until nodes.getLength).map(nodes.item(_).asInstanceOf[Element])

  "JUnitXml" should "write one testcase per case and check, a failure with its reason, and the counts" in {
    val root = parse(JUnitXml.render(result, Seq("baseline" -> "results/a")))
    root.getTagName shouldBe "testsuites"
    val suite = children(root, "testsuite").head
    Seq("tests", "failures", "skipped", "errors").map(suite.getAttribute) shouldBe Seq("3", "1", "1", "0")
    val cases = children(suite, "testcase")
    cases.map(c => (c.getAttribute("classname"), c.getAttribute("name"))) shouldBe
      Seq("capping resource", "cap", "cpu per request").map("pool-4" -> _)
    val failure = children(cases(1), "failure").head
    failure.getAttribute("message") shouldBe "fell: 38.2 req/s < 146.5 & \"more\" <here>"
    failure.getAttribute("type") shouldBe "cap"
    children(cases(0), "failure") shouldBe empty
    children(cases(2), "skipped").head.getAttribute("message") shouldBe "not compared"
    children(suite, "property").head.getAttribute("value") shouldBe "results/a"
    root.getTextContent should include("gone: in the baseline only, not compared")
  }
