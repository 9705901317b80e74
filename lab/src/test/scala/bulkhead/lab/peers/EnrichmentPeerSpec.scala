package bulkhead.lab.peers

import bulkhead.lab.model.Target
import bulkhead.lab.process.{Children, Dependencies, Served, Stack}
import bulkhead.lab.testkit.{Fixtures, Scratch}
import org.scalatest.BeforeAndAfterAll
import org.scalatest.flatspec.AnyFlatSpec
import org.scalatest.matchers.should.Matchers
import org.scalatest.tags.Slow

import java.net.URI
import java.net.http.{HttpClient, HttpRequest, HttpResponse}
import java.time.Duration

/**
 * The Vert.x pipeline beside bulkhead, both started by the lab against one real stub and one real redis-server: for
 * each request, the same status, Content-Type and body bytes, so a benchmark of the two compares the same work.
 */
@Slow
class EnrichmentPeerSpec extends AnyFlatSpec with Matchers with BeforeAndAfterAll:
  private val dir = Scratch.dir("lab-enrichment-peer")
  private val stack = Stack(Fixtures.launch, dir)
  // Profiles for customers 1..20 only: 30 is a customer of the third party without one.
  private val deps = Dependencies.start(stack, dir, redisCustomers = Some(20), stubArgs = Some(Seq("--latency",
    "fixed:0", "--customers", "100")))
  private val servers: Seq[Served] = Seq(Target.Bulkhead, Target.Vertx).map(t => stack.server(t, deps.serviceFlags))
  override def afterAll(): Unit =
    try
      servers.foreach(_.child.stop())
      deps.stop()
    finally Children.stopAll()

  private val http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()

  /** Status, Content-Type and body of `path` on bulkhead and on the peer, each asked at once. */
  private def both(path: String): Seq[(Int, String, String)] =
    servers.map(s => http.sendAsync(HttpRequest.newBuilder(URI.create(s.url(path))).timeout(Duration.ofSeconds(10))
      .build(), HttpResponse.BodyHandlers.ofString())).map(_.join()).map(r =>
      (r.statusCode(), r.headers().firstValue("Content-Type").orElse(""), r.body()))

  private def faults(value: String): Unit =
    Stack.post(deps.stub.get.url(s"/admin/faults?value=$value")).left.foreach(e => fail(e))

  "The Vert.x pipeline" should "answer /hello and a customer with bulkhead's bytes, with and without a profile" in {
    val Seq(hello, peerHello) = both("/hello")
    peerHello shouldBe hello
    hello._3 shouldBe "OK"
    Seq("/customers/7", "/customers/30").foreach { path =>
      val Seq(bulkhead, peer) = both(path)
      withClue(s"$path: ")(peer shouldBe bulkhead)
      bulkhead._1 shouldBe 200
    }
    both("/customers/7").head._3 should include(""""loyalty":{"available":true,"points":""")
    both("/customers/30").head._3 should endWith(""""loyalty":{"available":true}}""")
  }

  it should "refuse a bad id and an unknown customer with bulkhead's status and JSON" in {
    Seq("/customers/abc" -> 400, "/customers/0" -> 400, "/customers/1234567890" -> 400, "/customers/101" -> 404)
      .foreach { (path, status) =>
        val Seq(bulkhead, peer) = both(path)
        withClue(s"$path: ")(peer shouldBe bulkhead)
        bulkhead._1 shouldBe status
        bulkhead._2 shouldBe "application/json"
      }
  }

  it should "answer the third party's faults as bulkhead does" in {
    try
      Seq("server-error" -> 502, "malformed-xml" -> 502, "xxe" -> 502, "billion-laughs" -> 502, "oversized" -> 502)
        .foreach { (fault, status) =>
          faults(s"$fault=1.0")
          val Seq(bulkhead, peer) = both("/customers/7")
          withClue(s"$fault: ")(peer shouldBe bulkhead)
          bulkhead._1 shouldBe status
        }
    finally faults("")
  }

  it should "degrade the loyalty part as bulkhead does when Redis is gone" in {
    deps.redis.get.child.stop()
    val Seq(bulkhead, peer) = both("/customers/7")
    peer shouldBe bulkhead
    bulkhead._3 should endWith(""""loyalty":{"available":false}}""")
  }
