package bulkhead.lab.sample

import com.typesafe.config.ConfigFactory
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/** The table of JDK builds whose thread dumps can crash the JVM, and the versions read from what JVMs say. */
class DumpHazardsSpec extends AnyFlatSpec with Matchers:
  private def v(text: String) = JdkVersion.parse(text).get

  "JdkVersion" should "read the versions JVMs give of themselves, in the order of their releases" in {
    JdkVersion.ofVmVersion("15783:\nOpenJDK 64-Bit Server VM version 25.0.3+9-LTS\nJDK 25.0.3\n") shouldBe
      Some(JdkVersion(25, 0, 3))
    JdkVersion.parse("25.0.3+9-LTS") shouldBe Some(JdkVersion(25, 0, 3))
    JdkVersion.parse("17") shouldBe Some(JdkVersion(17))
    JdkVersion.parse("25.0.5.1") shouldBe Some(JdkVersion(25, 0, 5, 1))
    JdkVersion.parse("not a version") shouldBe None
    v("25.0.3") >= v("25.0.3") shouldBe true
    v("25.0.2") < v("25.0.3") shouldBe true
    v("25.0.5.1") >= v("25.0.5") shouldBe true
    v("26") >= v("25.0.9") shouldBe true
  }

  "The shipped table" should "mark JDK 25.0.3's JSON dump as risky with JDK-8364343, and no JSON dump before 25" in {
    val table = DumpHazards.Known
    table.of(DumpKind.Json, v("25.0.3")).map(_.id) should contain("JDK-8364343")
    table.of(DumpKind.Json, v("21.0.5")) shouldBe empty
    table.of(DumpKind.Json, v("17.0.15")) shouldBe empty
  }

  it should "say which defects need virtual threads: JDK-8364343 does, JDK-8359870 (a thread that terminates) does not" in {
    val byId = DumpHazards.Known.defects.map(d => d.id -> d.withVirtualThreads).toMap
    (byId("JDK-8364343"), byId("JDK-8359870")) shouldBe (true, false)
  }

  it should "name a source for every defect" in {
    DumpHazards.Known.defects should not be empty
    DumpHazards.Known.defects.foreach(d => withClue(d.id)(d.sources should not be empty))
  }

  "A defect" should "spare the updates of a release line from the one that carries its fix, and no other line" in {
    val table = DumpHazards.read(ConfigFactory.parseString(
      """defects = [{ id = "JDK-1", dump = json, since = 25, with-virtual-threads = true, fixed = { 25 = "25.0.5" },
        |  summary = "s", sources = ["x"] }]""".stripMargin))
      .fold(e => fail(e), identity)
    table.of(DumpKind.Json, v("25.0.4")).map(_.id) shouldBe Seq("JDK-1")
    table.of(DumpKind.Json, v("25.0.5")) shouldBe empty
    table.of(DumpKind.Json, v("26.0.1")).map(_.id) shouldBe Seq("JDK-1")
    table.of(DumpKind.ThreadInfo, v("25.0.4")) shouldBe empty
  }

  it should "refuse a fix named on another release line, saying which" in {
    DumpHazards.read(ConfigFactory.parseString(
      """defects = [{ id = "JDK-1", dump = json, since = 25, with-virtual-threads = true, fixed = { 25 = "26.0.1" },
        |  summary = "s", sources = [] }]""".stripMargin))
      .left.toOption.get should include("26.0.1")
  }
