package bulkhead.transport

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers

import java.net.InetAddress

/** Which hosts the client transport connects to as they are, without a name lookup. */
class SelectorClientTransportSpec extends AnyFlatSpec with Matchers:
  "An IP address" should "be connected to as it is, IPv4 and IPv6, bracketed or not" in {
    SelectorClientTransport.literal("127.0.0.1") shouldBe Some(InetAddress.getByAddress(Array[Byte](127, 0, 0, 1)))
    SelectorClientTransport.literal("10.255.0.7").map(_.getHostAddress) shouldBe Some("10.255.0.7")
    SelectorClientTransport.literal("::1").map(_.isLoopbackAddress) shouldBe Some(true)
    SelectorClientTransport.literal("[::1]").map(_.isLoopbackAddress) shouldBe Some(true)
  }

  "Anything else" should "be a name for Pekko's resolver, even when it looks like an address" in {
    SelectorClientTransport.literal("999.1.1.1") shouldBe None
    SelectorClientTransport.literal("localhost") shouldBe None
    SelectorClientTransport.literal("1.2.3") shouldBe None
    SelectorClientTransport.literal("a:b") shouldBe None
  }
