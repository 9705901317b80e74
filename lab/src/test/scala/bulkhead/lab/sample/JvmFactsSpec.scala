package bulkhead.lab.sample

import bulkhead.lab.testkit.Fixtures
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

/**
 * The JDK and cores a JVM reports itself, read from recorded `jcmd` answers of a JDK 17 JVM started with
 * `-XX:ActiveProcessorCount=1` and a JDK 25 JVM on both cores of the same 2-core machine.
 */
class JvmFactsSpec extends AnyFlatSpec with Matchers:
  "JvmFacts" should "read the JDK from VM.system_properties" in {
    JvmFacts.jdk(Fixtures.text("vm-system-properties-jdk17.txt")) shouldBe Some("17.0.15+6-Debian-1deb12u1")
    JvmFacts.jdk(Fixtures.text("vm-system-properties-jdk25.txt")) shouldBe Some("25.0.3+9-LTS")
  }

  it should "read the processors the JVM was given from VM.info, not the machine's" in {
    JvmFacts.cores(Fixtures.text("vm-info-system-jdk17-active1.txt")) shouldBe Some(1)
    JvmFacts.cores(Fixtures.text("vm-info-system-jdk25.txt")) shouldBe Some(2)
  }

  it should "find nothing in an answer that is not one" in {
    JvmFacts.jdk("Thread.print\nsomething else") shouldBe None
    JvmFacts.cores(Fixtures.text("vm-version-jdk25.txt")) shouldBe None
  }
