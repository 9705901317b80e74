package bulkhead.lab.sample

import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.net.{ServerSocket, Socket}
import scala.util.Using

/** A process's outbound connections by remote address, from /proc. */
@Slow
class OutboundConnectionsSpec extends AnyFlatSpec with Matchers:
  "OutboundConnections" should "read an address of /proc/net/tcp, IPv4 and IPv4-mapped IPv6" in {
    OutboundConnections.address("0100007F:1F90") shouldBe "127.0.0.1:8080"
    OutboundConnections.address("0000000000000000FFFF00000100007F:1538") shouldBe "127.0.0.1:5432"
  }

  it should "count this JVM's connections to a listener it opened, and not the listener's own accepted side" in {
    Using.resource(ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress)) { server =>
      val port = server.getLocalPort
      val clients = (1 to 3).map(_ => Socket("127.0.0.1", port))
      val accepted = clients.map(_ => server.accept())
      try
        val out = OutboundConnections.of(ProcessHandle.current().pid())
        // The three client sides go to the listener; the accepted sides come from its listening port: not outbound.
        out.get(s"127.0.0.1:$port") shouldBe Some(3)
        out.keys.exists(_.endsWith(s":${clients.head.getLocalPort}")) shouldBe false
      finally (clients ++ accepted).foreach(_.close())
    }
  }
