package bulkhead.lab.sample

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

class JmxAddressSpec extends AnyFlatSpec with Matchers:
  "JmxAddress" should "read HOST:PORT and [IPv6]:PORT into the agent's RMI connector URL" in {
    JmxAddress.parse("127.0.0.1:9010").map(_.serviceUrl) shouldBe
      Right("service:jmx:rmi:///jndi/rmi://127.0.0.1:9010/jmxrmi")
    JmxAddress.parse("orders.internal:7091") shouldBe Right(JmxAddress("orders.internal", 7091))
    JmxAddress.parse("[::1]:9010").map(_.serviceUrl) shouldBe Right("service:jmx:rmi:///jndi/rmi://[::1]:9010/jmxrmi")
  }

  it should "refuse anything else, saying what it wants" in {
    Seq("9010", "host", "host:0", "host:70000", "host:port", "a b:1", "service:jmx:rmi://x").foreach { bad =>
      JmxAddress.parse(bad).left.toOption.get should include("is not HOST:PORT")
    }
  }
