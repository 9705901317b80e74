package bulkhead.lab.faults

import bulkhead.lab.testkit.Scratch
import com.sun.net.httpserver.HttpServer
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.net.{InetAddress, InetSocketAddress}
import java.nio.file.Files
import java.util.concurrent.Executors

/**
 * The watcher's /health probes against a real server on loopback (the JDK's HttpServer) that stalls its answers while
 * told to: a stall the lab itself causes (as its full GC to read a held heap) is kept apart from the service's own.
 */
@Slow
class ServiceWatcherSpec extends AnyFlatSpec with Matchers:
  @volatile private var stallMs = 0L

  private def withServer(test: Int => Unit): Unit =
    val server = HttpServer.create(InetSocketAddress(InetAddress.getLoopbackAddress, 0), 16)
    server.setExecutor(Executors.newFixedThreadPool(2))
    server.createContext("/health", exchange =>
      if stallMs > 0 then Thread.sleep(stallMs)
      val body = "OK".getBytes
      exchange.sendResponseHeaders(200, body.length)
      exchange.getResponseBody.write(body)
      exchange.close())
    server.start()
    try test(server.getAddress.getPort) finally server.stop(0)

  private def watcher(port: Int) =
    val log = Files.createFile(Scratch.dir("watch").resolve("service.log"))
    ServiceWatcher(port, ProcessHandle.current.pid, log, System.nanoTime())

  "ServiceWatcher" should "keep a probe held by the lab's own pause apart from the service's slowest" in withServer {
    port =>
      val w = watcher(port)
      Thread.sleep(600)
      w.pausedByLab("a stall the test makes") {
        stallMs = 1200
        Thread.sleep(1300)
        stallMs = 0
      }
      Thread.sleep(800)
      val watched = w.stop(3.5)
      watched.healthOk shouldBe watched.healthProbes
      watched.labPausedProbes should be >= 1
      watched.labPausedWorstMs().get should be >= 1000.0
      watched.healthWorstMs().get should be < 1000.0
      watched.labPauses.map(_.what) shouldBe Seq("a stall the test makes")
      val p = watched.labPauses.head
      (p.to - p.from) should (be >= 1.2 and be < 3.0)
  }

  it should "count the same stall as the service's own when the lab did not cause it" in withServer { port =>
    val w = watcher(port)
    Thread.sleep(600)
    stallMs = 1200
    Thread.sleep(1300)
    stallMs = 0
    Thread.sleep(800)
    val watched = w.stop(3.5)
    watched.labPausedProbes shouldBe 0
    watched.labPauses shouldBe empty
    watched.healthWorstMs().get should be >= 1000.0
  }
